import { isRangeTooLargeMessage } from './range-too-large.ts';

const delaySeconds = /^\d+(\.\d+)?$/;
/** An HTTP date always names its weekday or month; a bare "-1" or "1e3" is not one, whatever Date.parse says. */
const hasLetters = /[a-z]/i;

/**
 * How long a `Retry-After` header asks to wait, in ms: delay-seconds (`120`) or an HTTP date, which is
 * compared with `nowMs` (wall-clock time, `Date.now()`). Undefined for no header or one that is neither.
 */
export function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (delaySeconds.test(value)) return Math.round(Number(value) * 1000);
  if (!hasLetters.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Providers' wordings of "this key is over its rate":
 * Alchemy (429) "Your app has exceeded its compute units per second capacity";
 * QuickNode (-32007) "50/second request limit reached - reduce calls per second…", (-32012) "credits limited to 6000/sec";
 * Infura (-32005) "daily request count exceeded, request rate limited", "project ID request rate exceeded";
 * Chainstack "You've exceeded the RPS limit available on the current plan";
 * op-geth and Base (-32016) "over rate limit"; Ankr "Too many requests, reason: call rate limit exhausted".
 */
const rateLimitWords =
  /rate[ -]?limit|too many requests|compute units per second|exceeded its [\w ]{0,40}capacity|request limit reached|credits limited to|request rate exceeded|request count exceeded|daily credit limit|exceeded the rps limit|quota exceeded|(exceeded|reached) the quota/i;
/** The OP Stack sequencer's per-sender limit: every upstream forwards to the same sequencer, so it is not this node's. */
const perSenderLimit = /sender is over rate limit/i;
const revert = /revert/i;

/**
 * Whether an answer says the upstream is over its rate or quota: `code` is an HTTP status or a JSON-RPC
 * error code, `message` the JSON-RPC error message ('' for a bare HTTP status).
 */
export function isRateLimitAnswer(code: number, message: string): boolean {
  // 429 is Too Many Requests as an HTTP status and as Alchemy's JSON-RPC code; 402 is Infura's spent daily credits.
  if (code === 429 || code === 402) return true;
  // A contract's own "rate limit" revert, a log range too wide ("-32005 query returned more than 10000
  // results") and a sender's limit at the sequencer are answers another call to this node would get too.
  if (code === 3 || revert.test(message) || isRangeTooLargeMessage(message) || perSenderLimit.test(message)) return false;
  return code === -32016 || rateLimitWords.test(message);
}
