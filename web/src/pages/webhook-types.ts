// What each webhook event type watches and which filter keys it takes (src/webhooks/webhook-config.ts).
export type ConfigKey =
  | 'addresses'
  | 'contracts'
  | 'from'
  | 'to'
  | 'min_value'
  | 'token_ids'
  | 'tx_hashes'
  | 'topics'
  | 'function_selectors'
  | 'confirmations';

export interface EventTypeInfo {
  label: string;
  description: string;
  keys: readonly ConfigKey[];
  /** At least one of these needs an entry. */
  needsOneOf?: readonly ConfigKey[];
}

export const eventTypes: Record<string, EventTypeInfo> = {
  address_activity: {
    label: 'Address activity',
    description: 'Any transaction, ERC-20 transfer or internal transfer from or to the addresses.',
    keys: ['addresses', 'function_selectors', 'min_value', 'confirmations'],
    needsOneOf: ['addresses'],
  },
  token_transfer: {
    label: 'Token transfer',
    description: 'ERC-20 Transfer logs.',
    keys: ['contracts', 'addresses', 'from', 'to', 'min_value', 'confirmations'],
  },
  nft_transfer: {
    label: 'NFT transfer',
    description: 'ERC-721 and ERC-1155 transfers, mints and burns included (one event per id).',
    keys: ['contracts', 'addresses', 'from', 'to', 'token_ids', 'confirmations'],
  },
  mined_transaction: {
    label: 'Mined transaction',
    description: 'A listed transaction is in a block.',
    keys: ['tx_hashes', 'confirmations'],
    needsOneOf: ['tx_hashes'],
  },
  log: {
    label: 'Contract log',
    description: 'Contract logs, eth_getLogs style.',
    keys: ['addresses', 'topics', 'confirmations'],
  },
  internal_transfer: {
    label: 'Internal transfer',
    description: 'Value moved by an inner call (from traces).',
    keys: ['addresses', 'from', 'to', 'min_value', 'confirmations'],
  },
  new_block: { label: 'New block', description: 'Every block.', keys: ['confirmations'] },
  pending_transaction: {
    label: 'Pending transaction',
    description: "A transaction enters the upstream's mempool.",
    keys: ['addresses', 'from', 'to', 'function_selectors', 'min_value'],
    needsOneOf: ['addresses', 'from', 'to'],
  },
};

export const keyInfo: Record<ConfigKey, { label: string; hint: string; list: boolean; placeholder?: string }> = {
  addresses: { label: 'Addresses', hint: 'One 0x address per line (from or to).', list: true, placeholder: '0x…' },
  contracts: {
    label: 'Token contracts',
    hint: 'One contract address per line; empty: every contract.',
    list: true,
    placeholder: '0x…',
  },
  from: { label: 'From', hint: 'Senders, one address per line.', list: true, placeholder: '0x…' },
  to: { label: 'To', hint: 'Recipients, one address per line.', list: true, placeholder: '0x…' },
  min_value: { label: 'Minimum value', hint: 'In the smallest unit (wei), decimal or 0x hex.', list: false, placeholder: '0' },
  token_ids: { label: 'Token ids', hint: 'One id per line, decimal or 0x hex.', list: true },
  tx_hashes: { label: 'Transaction hashes', hint: 'One 0x hash of 64 hex digits per line.', list: true, placeholder: '0x…' },
  topics: { label: 'Topics', hint: 'Per position: empty for any, a topic, or alternatives separated by commas.', list: false },
  function_selectors: {
    label: 'Function selectors',
    hint: 'One 4-byte selector per line, such as 0xa9059cbb.',
    list: true,
    placeholder: '0x…',
  },
  confirmations: {
    label: 'Confirmations',
    hint: 'Deliver once the block is this many blocks deep (0 to 1,000).',
    list: false,
    placeholder: '0',
  },
};
