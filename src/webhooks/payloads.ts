import { formatUnits } from 'viem';
import { variantBName, type WebhookEventType } from './event-types.ts';

export type PayloadFormat = 'snake_case' | 'camelCase';

/** One event as stored: what every delivery of it sends, whatever the attempt. */
export interface StoredEvent {
  readonly id: string;
  readonly webhookId: string;
  readonly type: WebhookEventType;
  readonly chainId: number;
  readonly data: Readonly<Record<string, unknown>>;
  readonly removed: boolean;
  readonly removesEventId: string | null;
  readonly test: boolean;
  readonly createdAt: Date;
}

/**
 * The JSON body of a delivery: Variant A (`snake_case`, the default) or Variant B (`camelCase`).
 * Fields whose text would take the body over `maxBytes` (a log's data, say) are cut and named in
 * `truncated`.
 */
export function renderPayload(event: StoredEvent, format: PayloadFormat, maxBytes: number): string {
  const body = format === 'camelCase' ? variantB(event) : variantA(event);
  const text = JSON.stringify(body);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return JSON.stringify(truncate(body));
}

function variantA(event: StoredEvent): Record<string, unknown> {
  return {
    id: event.id,
    event_type: event.type,
    webhook_id: event.webhookId,
    created_at: event.createdAt.toISOString(),
    test: event.test,
    removed: event.removed,
    removes_event_id: event.removesEventId,
    data: event.data,
  };
}

function variantB(event: StoredEvent): Record<string, unknown> {
  const d = event.data;
  return {
    id: event.id,
    type: variantBName(event.type),
    webhookId: event.webhookId,
    createdAt: event.createdAt.toISOString(),
    chain: d.chain,
    chainId: event.chainId,
    network: d.network,
    test: event.test,
    removed: event.removed,
    removesEventId: event.removesEventId,
    data: event.type === 'token_transfer' ? tokenTransferB(d) : camelKeys(d),
  };
}

/** Variant B's TOKEN_TRANSFER data, field for field as the spec gives it. */
function tokenTransferB(d: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const decimals = d.decimals as number | null;
  return {
    blockNumber: d.block_number,
    blockHash: d.block_hash,
    transactionHash: d.tx_hash,
    logIndex: d.log_index,
    from: d.from,
    to: d.to,
    token: { address: d.contract, symbol: d.symbol, decimals },
    value: d.value,
    valueFormatted: decimals === null ? null : formatUnits(BigInt(d.value as string), decimals),
  };
}

const renamed: Record<string, string> = { tx_hash: 'transactionHash', tx_index: 'transactionIndex' };

function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      renamed[key] ?? key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      camelKeys(inner),
    ]),
  );
}

const keptChars = 1024;

function truncate(body: Record<string, unknown>): Record<string, unknown> {
  const dataKey = 'data';
  const data = { ...(body[dataKey] as Record<string, unknown>) };
  const cut: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string' && value.length > keptChars) {
      data[key] = value.slice(0, keptChars);
      cut.push(key);
    } else if (typeof value === 'object' && value !== null && JSON.stringify(value).length > keptChars) {
      data[key] = null;
      cut.push(key);
    }
  }
  return { ...body, [dataKey]: data, truncated: cut };
}
