import { describe, expect, it } from 'vitest';
import { nextAttemptDelayMs, nextUtcDay, parseRetryAfter } from '../../../src/webhooks/retry-schedule.ts';

const schedule = [10, 60, 300];

describe('nextAttemptDelayMs', () => {
  it('takes the delay for the attempts made, without jitter at random 0.5', () => {
    expect(nextAttemptDelayMs(schedule, 1, undefined, () => 0.5)).toBe(10_000);
    expect(nextAttemptDelayMs(schedule, 2, undefined, () => 0.5)).toBe(60_000);
    expect(nextAttemptDelayMs(schedule, 3, undefined, () => 0.5)).toBe(300_000);
  });

  it('jitters by at most 10% either way', () => {
    expect(nextAttemptDelayMs(schedule, 2, undefined, () => 0)).toBe(54_000);
    expect(nextAttemptDelayMs(schedule, 2, undefined, () => 0.999_999)).toBe(66_000);
    for (let i = 0; i < 200; i++) {
      const delay = nextAttemptDelayMs(schedule, 2, undefined) as number;
      expect(delay).toBeGreaterThanOrEqual(54_000);
      expect(delay).toBeLessThanOrEqual(66_000);
    }
  });

  it('is undefined once the schedule is spent', () => {
    expect(nextAttemptDelayMs(schedule, 4, undefined, () => 0.5)).toBeUndefined();
    expect(nextAttemptDelayMs([], 1, 30, () => 0.5)).toBeUndefined();
    // A Retry-After does not extend a spent schedule.
    expect(nextAttemptDelayMs(schedule, 4, 30, () => 0.5)).toBeUndefined();
  });

  it('honours a Retry-After that asks for longer, and ignores a shorter one', () => {
    expect(nextAttemptDelayMs(schedule, 1, 120, () => 0.5)).toBe(120_000);
    expect(nextAttemptDelayMs(schedule, 1, 11, () => 1 - 1e-9)).toBe(11_000);
    expect(nextAttemptDelayMs(schedule, 2, 5, () => 0.5)).toBe(60_000);
    expect(nextAttemptDelayMs(schedule, 2, 0, () => 0)).toBe(54_000);
  });

  it('caps a Retry-After at a day', () => {
    expect(nextAttemptDelayMs(schedule, 1, 86_400, () => 0.5)).toBe(86_400_000);
    expect(nextAttemptDelayMs(schedule, 1, 10 * 86_400, () => 0.5)).toBe(86_400_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 7 ', now)).toBe(7);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date as the seconds until it, and a past date as 0', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:00 GMT', now + 500)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('rounds a date a fraction of a second away up', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:01 GMT', now + 200)).toBe(1);
  });

  it('is undefined for an absent or unreadable header', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('not a date at all', now)).toBeUndefined();
  });
});

describe('nextUtcDay', () => {
  it('is the next UTC midnight', () => {
    expect(nextUtcDay(new Date('2026-03-14T15:09:26.535Z')).toISOString()).toBe('2026-03-15T00:00:00.000Z');
  });

  it('is the next day at midnight itself, and rolls over months and years', () => {
    expect(nextUtcDay(new Date('2026-03-15T00:00:00.000Z')).toISOString()).toBe('2026-03-16T00:00:00.000Z');
    expect(nextUtcDay(new Date('2026-02-28T23:59:59.999Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(nextUtcDay(new Date('2028-02-28T10:00:00.000Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(nextUtcDay(new Date('2026-12-31T23:00:00.000Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
