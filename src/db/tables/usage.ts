import type { BigNumeric, Timestamp } from './column-types.ts';

/** Requests and compute units per account, key, network, method and status class, per minute. */
export interface UsageMinutesTable {
  minute: Timestamp;
  account_id: string;
  key_id: string;
  /** `{chain}/{network}`, or '' when the request had none. */
  network: string;
  /** The JSON-RPC method, or the REST route as `GET /v1/...` (its pattern). */
  method: string;
  status_class: '2xx' | '4xx' | '429' | '5xx';
  requests: BigNumeric;
  compute_units: BigNumeric;
}
