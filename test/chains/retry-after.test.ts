import { describe, expect, it } from 'vitest';
import { isRateLimitAnswer, retryAfterMs } from '../../src/chains/retry-after.ts';

describe('retryAfterMs', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');

  it.each([
    ['0', 0],
    ['1', 1000],
    [' 120 ', 120_000],
    ['1.5', 1500],
  ])('reads delay-seconds %j', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });

  it('reads an HTTP date against the wall clock given', () => {
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
  });

  it('reads a date already past as no wait', () => {
    expect(retryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it.each([[undefined], [''], ['  '], ['-1'], ['1e3'], ['soon'], ['0x10']])('has no answer for %j', (header) => {
    expect(retryAfterMs(header, now)).toBeUndefined();
  });
});

describe('isRateLimitAnswer', () => {
  it.each([
    [429, ''],
    [
      429,
      'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message.',
    ],
    [402, 'Payment Required'],
    [-32005, 'daily request count exceeded, request rate limited'],
    [-32005, 'project ID request rate exceeded'],
    [-32005, 'legacy access request rate exceeded'],
    [-32005, 'Your account has exceeded its Compute Units Per Second capacity.'],
    [-32007, '50/second request limit reached - reduce calls per second or upgrade your account at quicknode.com'],
    [-32012, 'credits limited to 6000/sec'],
    [-32016, 'over rate limit'],
    [-32016, ''],
    [-32000, "You've exceeded the RPS limit available on the current plan."],
    [-32000, 'Too many requests, reason: call rate limit exhausted, retry in 10s'],
    [-32000, '429 Too Many Requests: {"jsonrpc":"2.0","error":{"code":-32016,"message":"over rate limit"}}'],
    [-32603, 'Exceeded the quota usage'],
  ])('%i %j is a rate limit', (code, message) => {
    expect(isRateLimitAnswer(code, message)).toBe(true);
  });

  it.each([
    [200, ''],
    [500, ''],
    [-32005, 'limit exceeded'],
    [-32005, 'query returned more than 10000 results'],
    [-32602, 'block range too large, max 2000'],
    [3, 'execution reverted: RateLimit: too many requests'],
    [-32000, 'execution reverted: rate limit exceeded'],
    [-32000, 'sender is over rate limit'],
    [-32000, 'header not found'],
    [-32000, 'nonce too low'],
    [-32603, 'internal error'],
  ])('%i %j is not', (code, message) => {
    expect(isRateLimitAnswer(code, message)).toBe(false);
  });
});
