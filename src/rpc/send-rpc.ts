/**
 * Sends a JSON-RPC body upstream and returns the answer's text (errors included, never thrown for the
 * chain). `sent` says what the body asks when the cache tells: its params (a piece of an eth_getLogs
 * split has its own range) and whether its answer may be stored, so must pass the integrity checks.
 */
export type SendRpc = (body: string, sent?: SentCall) => Promise<string>;

export interface SentCall {
  readonly params: unknown;
  readonly stored: boolean;
}
