import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';

const token = '0x2c557E17c11A17fA0862602f544885F183E680fB';
const nft = '0x5fcE3397305F68A1D19Bd068c67E03C2B02ae4C3';

describe('spam: settings', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-spam-config-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  function load(spam: unknown) {
    const path = join(cwd, 'blockyard.yaml');
    writeFileSync(path, stringify({ spam }));
    return loadConfig({ flags: {}, env: { BLOCKYARD_CONFIG: path }, cwd });
  }

  it('reads the allow and deny lists per chain and network, lower-cased, and the scam patterns', () => {
    const config = load({
      allow: [{ chain: 'ethereum', network: 'mainnet', contract: token }],
      deny: [
        { chain: 'ethereum', network: 'mainnet', contract: nft },
        { chain: 'base', network: 'mainnet', contract: token },
      ],
      scam_code_hashes: [`0x${'AB'.repeat(32)}`],
      scam_selectors: ['0xDEADBEEF'],
    });
    expect([...config.spam!.allow.get('ethereum/mainnet')!]).toEqual([token.toLowerCase()]);
    expect([...config.spam!.deny.get('ethereum/mainnet')!]).toEqual([nft.toLowerCase()]);
    expect([...config.spam!.deny.get('base/mainnet')!]).toEqual([token.toLowerCase()]);
    expect(config.spam!.scamCodeHashes).toEqual([`0x${'ab'.repeat(32)}`]);
    expect(config.spam!.scamSelectors).toEqual(['0xdeadbeef']);
  });

  it('stops the start on a contract on both lists of a network, on a bad address and on unknown keys', () => {
    const entry = { chain: 'ethereum', network: 'mainnet', contract: token };
    expect(() => load({ allow: [entry], deny: [{ ...entry, contract: token.toLowerCase() }] })).toThrow(ConfigError);
    expect(() => load({ allow: [entry], deny: [entry] })).toThrow(/spam\.allow/);
    expect(() => load({ deny: [{ ...entry, contract: '0x1234' }] })).toThrow(/spam/);
    expect(() => load({ block: [entry] })).toThrow(/spam/);
    expect(() => load({ scam_selectors: ['0x1234'] })).toThrow(/spam/);
  });
});
