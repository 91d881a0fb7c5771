import { type Hex, keccak256 } from 'viem';
import type { PooledUpstream } from './pooled-upstream.ts';
import { answerError } from './retryable.ts';

/**
 * A node's words for "I have this very transaction already": geth ("already known"), Besu ("Known
 * transaction"), OpenEthereum and anvil ("Transaction already imported"), Erigon ("ALREADY_EXISTS"),
 * Nethermind ("AlreadyKnown"), and the mempool wordings of providers.
 */
const alreadyKnown =
  /already known|alreadyknown|known transaction|already imported|already_exists|already exists|already in (the )?mempool/i;
/** The nonce is used: by this transaction (mined or pending) or by another one. Only the node can tell which. */
const nonceTooLow = /nonce too low|nonce has already been used|oldnonce|old nonce/i;

/** A raw-transaction send: its id as JSON text and the transaction's hash. */
interface RawSend {
  readonly idJson: string;
  readonly hash: Hex;
}

/**
 * How to send `body` to one upstream so that sending the same signed transaction again is safe: for an
 * `eth_sendRawTransaction`, a node's "already known" answers the transaction's hash (keccak256 of its raw
 * bytes), as does "nonce too low" when the node knows that very transaction (`eth_getTransactionByHash`
 * is not null); any other answer, and "nonce too low" for another transaction, is the node's unchanged.
 * Other bodies are sent as they are.
 */
export function idempotentSender(body: string): (target: PooledUpstream) => Promise<string> {
  const send = rawSendOf(body);
  if (send === undefined) return (target) => target.send(body);
  return async (target) => {
    const text = await target.send(body);
    const error = answerError(text);
    if (error === undefined) return text;
    const hashAnswer = `{"jsonrpc":"2.0","id":${send.idJson},"result":"${send.hash}"}`;
    if (alreadyKnown.test(error.message)) return hashAnswer;
    if (nonceTooLow.test(error.message) && (await knowsTransaction(target, send.hash))) return hashAnswer;
    return text;
  };
}

/** The id and transaction hash of a single `eth_sendRawTransaction` call, else undefined. */
export function rawSendOf(body: string): RawSend | undefined {
  if (!body.includes('"eth_sendRawTransaction"')) return undefined;
  let call: unknown;
  try {
    call = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (call === null || typeof call !== 'object' || Array.isArray(call)) return undefined;
  const { id, method, params } = call as { id?: unknown; method?: unknown; params?: unknown };
  const raw = Array.isArray(params) ? params[0] : undefined;
  if (method !== 'eth_sendRawTransaction' || typeof raw !== 'string' || !/^0x(?:[0-9a-fA-F]{2})+$/.test(raw)) return undefined;
  return { idJson: JSON.stringify(id ?? null), hash: keccak256(raw as Hex) };
}

/** Whether the node has the transaction (pending or mined); a failed lookup counts as no. */
async function knowsTransaction(target: PooledUpstream, hash: Hex): Promise<boolean> {
  try {
    const text = await target.send(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["${hash}"]}`);
    return /"result"\s*:\s*\{/.test(text);
  } catch {
    return false;
  }
}
