import { describe, expect, it } from 'vitest';
import { renderPayload, type StoredEvent } from '../../../src/webhooks/payloads.ts';

const txHash = `0x${'1'.repeat(64)}`;
const blockHash = `0x${'2'.repeat(64)}`;
const contract = `0x${'c'.repeat(40)}`;
const alice = `0x${'a'.repeat(40)}`;
const bob = `0x${'b'.repeat(40)}`;

const tokenTransfer: StoredEvent = {
  id: 'evt_token',
  webhookId: 'wh_1',
  type: 'token_transfer',
  chainId: 31337,
  data: {
    chain: 'ethereum',
    network: 'devnet',
    block_number: 12,
    block_hash: blockHash,
    tx_hash: txHash,
    log_index: 3,
    contract,
    from: alice,
    to: bob,
    value: '1234500000000000000',
    symbol: 'TST',
    decimals: 18,
  },
  removed: false,
  removesEventId: null,
  test: false,
  createdAt: new Date('2026-05-01T10:00:00.000Z'),
};

const log: StoredEvent = {
  ...tokenTransfer,
  id: 'evt_log',
  type: 'log',
  data: {
    chain: 'ethereum',
    network: 'devnet',
    block_number: 12,
    block_hash: blockHash,
    tx_hash: txHash,
    tx_index: 0,
    log_index: 4,
    address: contract,
    topics: [`0x${'d'.repeat(64)}`],
    data: '0x00',
  },
};

const parse = (text: string) => JSON.parse(text) as Record<string, unknown> & { data: Record<string, unknown> };

describe('renderPayload, Variant A (snake_case)', () => {
  it('wraps the stored data in the envelope fields', () => {
    const body = parse(renderPayload(tokenTransfer, 'snake_case', 1_000_000));
    expect(body).toEqual({
      id: 'evt_token',
      event_type: 'token_transfer',
      webhook_id: 'wh_1',
      created_at: '2026-05-01T10:00:00.000Z',
      test: false,
      removed: false,
      removes_event_id: null,
      data: tokenTransfer.data,
    });
  });

  it('carries a removal and a test flag', () => {
    const removal = { ...log, id: 'evt_undo', removed: true, removesEventId: 'evt_log', test: true };
    const body = parse(renderPayload(removal, 'snake_case', 1_000_000));
    expect(body.removed).toBe(true);
    expect(body.removes_event_id).toBe('evt_log');
    expect(body.test).toBe(true);
    expect(body).not.toHaveProperty('truncated');
  });
});

describe('renderPayload, Variant B (camelCase)', () => {
  it("gives TOKEN_TRANSFER the spec's data, with valueFormatted", () => {
    const body = parse(renderPayload(tokenTransfer, 'camelCase', 1_000_000));
    expect(body).toEqual({
      id: 'evt_token',
      type: 'TOKEN_TRANSFER',
      webhookId: 'wh_1',
      createdAt: '2026-05-01T10:00:00.000Z',
      chain: 'ethereum',
      chainId: 31337,
      network: 'devnet',
      test: false,
      removed: false,
      removesEventId: null,
      data: {
        blockNumber: 12,
        blockHash,
        transactionHash: txHash,
        logIndex: 3,
        from: alice,
        to: bob,
        token: { address: contract, symbol: 'TST', decimals: 18 },
        value: '1234500000000000000',
        valueFormatted: '1.2345',
      },
    });
  });

  it('formats with the token decimals, and gives null without them', () => {
    const six = { ...tokenTransfer, data: { ...tokenTransfer.data, decimals: 6, value: '2500001' } };
    expect(parse(renderPayload(six, 'camelCase', 1_000_000)).data.valueFormatted).toBe('2.500001');
    const unknown = { ...tokenTransfer, data: { ...tokenTransfer.data, symbol: null, decimals: null } };
    const data = parse(renderPayload(unknown, 'camelCase', 1_000_000)).data;
    expect(data.valueFormatted).toBeNull();
    expect(data.token).toEqual({ address: contract, symbol: null, decimals: null });
  });

  it('renames the keys of other types to camelCase, tx_hash to transactionHash', () => {
    const body = parse(renderPayload(log, 'camelCase', 1_000_000));
    expect(body.type).toBe('LOG');
    expect(body.data).toEqual({
      chain: 'ethereum',
      network: 'devnet',
      blockNumber: 12,
      blockHash,
      transactionHash: txHash,
      transactionIndex: 0,
      logIndex: 4,
      address: contract,
      topics: [`0x${'d'.repeat(64)}`],
      data: '0x00',
    });
  });

  it('renames nested keys too, and names NFT events NFT_ACTIVITY', () => {
    const nft: StoredEvent = {
      ...tokenTransfer,
      type: 'nft_transfer',
      data: { token_id: '5', metadata: { image_url: 'ipfs://x', the_attrs: [{ trait_type: 'hat' }] } },
    };
    const body = parse(renderPayload(nft, 'camelCase', 1_000_000));
    expect(body.type).toBe('NFT_ACTIVITY');
    expect(body.data).toEqual({ tokenId: '5', metadata: { imageUrl: 'ipfs://x', theAttrs: [{ traitType: 'hat' }] } });
  });
});

describe('renderPayload over maxBytes', () => {
  const big: StoredEvent = {
    ...log,
    data: { ...log.data, data: `0x${'ab'.repeat(5_000)}`, topics: Array.from({ length: 40 }, () => `0x${'e'.repeat(64)}`) },
  };

  it('sends everything and no truncated key when it fits', () => {
    const text = renderPayload(big, 'snake_case', 1_000_000);
    expect(parse(text).data.data).toBe(big.data.data);
    expect(parse(text)).not.toHaveProperty('truncated');
  });

  it('cuts long strings to 1024 characters, drops big lists, and names them in truncated', () => {
    const text = renderPayload(big, 'snake_case', 4_000);
    const body = parse(text);
    expect(body.truncated).toEqual(['topics', 'data']);
    expect(body.data.data).toBe((big.data.data as string).slice(0, 1024));
    expect(body.data.topics).toBeNull();
    expect(body.data.address).toBe(contract);
    expect(body.id).toBe('evt_log');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4_000);
  });

  it('truncates Variant B bodies the same way, under their own key names', () => {
    const body = parse(renderPayload(big, 'camelCase', 4_000));
    expect(body.truncated).toEqual(['topics', 'data']);
    expect(body.type).toBe('LOG');
    expect((body.data.data as string).length).toBe(1024);
  });

  it('measures bytes, not characters', () => {
    const wide: StoredEvent = { ...log, data: { note: 'é'.repeat(600) } };
    const chars = JSON.stringify(JSON.parse(renderPayload(wide, 'snake_case', 1_000_000))).length;
    // Fits in characters, not in bytes: it goes the truncation path (nothing is long enough to cut).
    const body = parse(renderPayload(wide, 'snake_case', chars + 10));
    expect(body.truncated).toEqual([]);
  });
});
