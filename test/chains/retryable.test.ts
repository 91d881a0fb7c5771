import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../src/chains/circuit-breaker.ts';
import { answerError, isRetryable, isRetryableAnswerError, RetryableRpcError } from '../../src/chains/retryable.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';

const errorText = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message } });

describe('retry allowlist', () => {
  it.each([
    [-32000, 'header not found'],
    [-32000, 'unknown block'],
    [-32005, 'limit exceeded'],
    [-32005, 'request rate exceeded'],
    [429, 'Too Many Requests'],
    [-32603, 'missing trie node 8d3f… (path )'],
  ])('retries %i %s on another node', (code, message) => {
    expect(isRetryableAnswerError(answerError(errorText(code, message))!)).toBe(true);
  });

  it.each([
    [3, 'execution reverted: not owner'],
    [-32000, 'execution reverted'],
    [-32602, 'invalid params: header not found'],
    [-32601, 'the method eth_foo does not exist/is not available'],
    [-32000, 'nonce too low'],
    [-32000, 'insufficient funds for gas * price + value'],
    [-32603, 'internal error'],
  ])('never retries %i %s', (code, message) => {
    expect(isRetryableAnswerError(answerError(errorText(code, message))!)).toBe(false);
  });

  it('does not parse results, and ignores "error" members below the top level', () => {
    expect(answerError('{"jsonrpc":"2.0","id":1,"result":"0x1"}')).toBeUndefined();
    expect(answerError('{"jsonrpc":"2.0","id":1,"result":{"calls":[{"error":"execution reverted"}]}}')).toBeUndefined();
  });

  it('reads the top-level error of a single answer after leading blanks, and none of a batch answer', () => {
    expect(answerError(`\n\t ${errorText(-32005, 'limit exceeded')}`)).toEqual({ code: -32005, message: 'limit exceeded' });
    expect(answerError(`[${errorText(-32005, 'limit exceeded')}]`)).toBeUndefined();
    expect(answerError('')).toBeUndefined();
  });

  it('fails over on transport failures and retryable node errors only', () => {
    expect(isRetryable(new UpstreamError('timeout', 'upstream timed out'))).toBe(true);
    expect(isRetryable(new RetryableRpcError(errorText(-32005, 'limit exceeded'), -32005))).toBe(true);
    expect(isRetryable(new TypeError('a bug'))).toBe(false);
  });
});

describe('circuit breaker', () => {
  it('opens after consecutive failures, half-opens after the cooldown for one probe, closes on success', () => {
    const states: string[] = [];
    const breaker = createCircuitBreaker({ failureThreshold: 3, cooldownMs: 100, onStateChange: (s) => states.push(s) });
    breaker.onFailure(0);
    breaker.onSuccess();
    breaker.onFailure(0);
    breaker.onFailure(0);
    expect(breaker.state).toBe('closed');
    breaker.onFailure(10);
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire(50)).toBe(false);
    expect(breaker.isAvailable(110)).toBe(true);
    expect(breaker.tryAcquire(110)).toBe(true);
    expect(breaker.state).toBe('half_open');
    expect(breaker.tryAcquire(111)).toBe(false);
    breaker.onFailure(120);
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire(219)).toBe(false);
    expect(breaker.tryAcquire(220)).toBe(true);
    breaker.onSuccess();
    expect(breaker.state).toBe('closed');
    expect(states).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
  });
});

describe('range-too-large answers', () => {
  it('are never failed over, even with the rate-limit code -32005 (Infura uses it for them)', () => {
    expect(isRetryableAnswerError({ code: -32005, message: 'query returned more than 10000 results' })).toBe(false);
    expect(isRetryableAnswerError({ code: -32000, message: 'block range too large, max 2000' })).toBe(false);
    expect(isRetryableAnswerError({ code: -32005, message: 'rate limit exceeded' })).toBe(true);
  });
});
