import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeUnitsFor, defaultMethodComputeUnits, evmComputeUnits, restComputeUnits } from '../../src/limits/compute-units.ts';
import { planLimits, plans } from '../../src/limits/plans.ts';
import { defaultSolanaComputeUnits, solanaComputeUnits } from '../../src/limits/solana-compute-units.ts';

const doc = readFileSync(new URL('../../docs/compute-units.md', import.meta.url), 'utf8');

/** Table rows of the doc that start with a code name and a number: `| \`name\` | 20 ... |`. */
function documentedUnits(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const match of doc.matchAll(/^\| `([\w.]+)` \| (\d+)\b/gm)) rows.set(match[1]!, Number(match[2]));
  return rows;
}

const format = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en-US'));

describe('compute units', () => {
  it('are fixed by the spec for eth_blockNumber and historical eth_getStorageAt', () => {
    expect(computeUnitsFor('eth_blockNumber', [])).toBe(1);
    expect(evmComputeUnits.eth_blockNumber).toBe(1);
    const slot = ['0x0000000000000000000000000000000000000001', '0x0'];
    expect(computeUnitsFor('eth_getStorageAt', [...slot, '0x10'])).toBe(20);
    expect(computeUnitsFor('eth_getStorageAt', [...slot, 'earliest'])).toBe(20);
    expect(computeUnitsFor('eth_getStorageAt', [...slot, `0x${'ab'.repeat(32)}`])).toBe(20);
    expect(computeUnitsFor('eth_getStorageAt', [...slot, { blockNumber: '0x10' }])).toBe(20);
    expect(computeUnitsFor('eth_getStorageAt', [...slot, { blockHash: `0x${'ab'.repeat(32)}` }])).toBe(20);
  });

  it('charge less for eth_getStorageAt at the head', () => {
    const slot = ['0x0000000000000000000000000000000000000001', '0x0'];
    for (const tag of ['latest', 'pending', 'safe', 'finalized'])
      expect(computeUnitsFor('eth_getStorageAt', [...slot, tag])).toBe(5);
    expect(computeUnitsFor('eth_getStorageAt', slot)).toBe(5);
    expect(computeUnitsFor('eth_getStorageAt', [...slot, null])).toBe(5);
    expect(computeUnitsFor('eth_getStorageAt', undefined)).toBe(5);
  });

  it('use the table, and the default for unknown methods (not Object.prototype names)', () => {
    expect(computeUnitsFor('eth_getLogs', [{}])).toBe(evmComputeUnits.eth_getLogs);
    expect(computeUnitsFor('debug_traceTransaction', ['0x1'])).toBe(evmComputeUnits.debug_traceTransaction);
    expect(computeUnitsFor('eth_somethingNew', [])).toBe(defaultMethodComputeUnits);
    expect(computeUnitsFor('constructor', [])).toBe(defaultMethodComputeUnits);
    expect(computeUnitsFor('toString', [])).toBe(defaultMethodComputeUnits);
  });

  it('keep heavy calls heavier than reads, and every call within the free plan CU/s', () => {
    const cu = evmComputeUnits;
    expect(cu.eth_getLogs).toBeGreaterThan(cu.eth_call!);
    expect(cu.eth_sendRawTransaction).toBeGreaterThan(cu.eth_getBalance!);
    expect(cu.debug_traceTransaction).toBeGreaterThan(cu.eth_getLogs!);
    for (const [method, units] of Object.entries({ ...cu, ...restComputeUnits })) {
      expect(Number.isInteger(units) && units >= 1 && units <= planLimits.free.cups!, method).toBe(true);
    }
  });

  it('cover the common method families and every REST route', () => {
    for (const prefix of ['eth_', 'net_', 'web3_', 'debug_', 'trace_', 'txpool_']) {
      expect(
        Object.keys(evmComputeUnits).some((m) => m.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    expect(Object.keys(evmComputeUnits)).toContain('eth_subscribe');
    expect(Object.keys(restComputeUnits).sort()).toEqual(
      [
        'tokens.balances',
        'tokens.metadata',
        'nfts.metadata',
        'nfts.refresh',
        'nfts.collection',
        'nfts.owned',
        'transfers.list',
        'wallets.create',
        'wallets.get',
        'wallets.list',
        'webhooks.create',
        'webhooks.list',
        'webhooks.update',
        'webhooks.delete',
        'webhooks.get',
        'webhooks.deliveries',
        'webhooks.test',
        'webhooks.redeliver',
        'webhooks.replay',
        'webhooks.rotate_secret',
        'webhooks.addresses.update',
        'webhooks.addresses.replace',
        'webhooks.addresses.list',
        'bundler.rpc',
        'gas.prices',
        'gas.policies.create',
        'gas.policies.list',
        'gas.policies.get',
        'gas.policies.update',
        'gas.policies.delete',
        'gas.policies.usage',
        'gas.sponsor',
        'usage.get',
      ].sort(),
    );
  });
});

describe('docs/compute-units.md', () => {
  it('lists every table entry with its number, and nothing else', () => {
    const documented = documentedUnits();
    const code = new Map(Object.entries({ ...evmComputeUnits, ...solanaComputeUnits, ...restComputeUnits }));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(code));
  });

  it('states the default, the head price of eth_getStorageAt and the batch rule', () => {
    expect(doc).toContain(`Methods not listed cost **${defaultMethodComputeUnits} CU**`);
    expect(doc).toMatch(/\*\*5 CU at\s+the head\*\*/);
    expect(doc).toContain('costs the **sum** of its calls');
    expect(doc).toContain('## Rate limit headers');
    expect(doc).toContain(`Solana methods not listed cost **${defaultSolanaComputeUnits} CU**`);
  });

  it('shows the plans table as in the code', () => {
    for (const plan of plans) {
      const l = planLimits[plan];
      const row = `| ${plan} | ${format(l.rps)} | ${format(l.rpd)} | ${format(l.cups)} | ${format(l.webhook_deliveries_per_day)} |`;
      expect(doc, plan).toContain(row);
    }
  });
});
