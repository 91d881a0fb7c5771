import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTokenList } from '../../src/tokens/token-list.ts';

const dir = mkdtempSync(join(tmpdir(), 'blockyard-token-list-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const gateway = { ipfsGateway: 'https://ipfs.example/ipfs/' };

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

describe('token list', () => {
  it('finds logos by chain id and address in any case, through the IPFS gateway for ipfs:// URIs', () => {
    const list = loadTokenList(
      write('good.json', {
        name: 'Test list',
        tokens: [
          { chainId: 1, address: usdc, symbol: 'USDC', decimals: 6, logoURI: 'https://logos.example/usdc.png' },
          { chainId: 10, address: usdc, logoURI: 'ipfs://QmLogo/usdc.png' },
          { chainId: 137, address: usdc, logoURI: 'ipfs://ipfs/QmOther' },
          { chainId: 5, address: usdc },
        ],
      }),
      gateway,
    );
    expect(list.size).toBe(3);
    expect(list.logoFor(1, usdc.toLowerCase())).toBe('https://logos.example/usdc.png');
    expect(list.logoFor(10, usdc)).toBe('https://ipfs.example/ipfs/QmLogo/usdc.png');
    expect(list.logoFor(137, usdc)).toBe('https://ipfs.example/ipfs/QmOther');
    expect(list.logoFor(5, usdc)).toBeNull();
    expect(list.logoFor(2, usdc)).toBeNull();
  });

  it('stops the start with an error naming the file and the bad entry', () => {
    const missing = join(dir, 'absent.json');
    expect(() => loadTokenList(missing, gateway)).toThrow(`token list ${missing} cannot be read: ENOENT`);
    const notJson = write('not.json', '{"tokens": [');
    expect(() => loadTokenList(notJson, gateway)).toThrow(new RegExp(`token list ${notJson} is not JSON`));
    const noTokens = write('empty.json', { name: 'x' });
    expect(() => loadTokenList(noTokens, gateway)).toThrow(`token list ${noTokens} has no "tokens" array`);
    const badAddress = write('address.json', {
      tokens: [
        { chainId: 1, address: usdc },
        { chainId: 1, address: '0x12' },
      ],
    });
    expect(() => loadTokenList(badAddress, gateway)).toThrow(`token list ${badAddress}: tokens[1].address is not`);
    const badChain = write('chain.json', { tokens: [{ chainId: '1', address: usdc }] });
    expect(() => loadTokenList(badChain, gateway)).toThrow(`token list ${badChain}: tokens[0].chainId is not a chain id`);
    const badLogo = write('logo.json', { tokens: [{ chainId: 1, address: usdc, logoURI: 5 }] });
    expect(() => loadTokenList(badLogo, gateway)).toThrow(`token list ${badLogo}: tokens[0].logoURI is not a URI`);
  });
});
