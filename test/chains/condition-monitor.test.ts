import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type ConditionFacts, conditionOf, createConditionMonitor } from '../../src/chains/upstream-condition.ts';
import { captureLog } from '../support/log-lines.ts';

const ok: ConditionFacts = {
  identity: 'verified',
  identityProblem: undefined,
  breaker: 'closed',
  lastFailure: undefined,
  backingOffMs: 0,
  badAnswer: undefined,
  lagBlocks: 0,
  maxLagBlocks: 3,
};

describe('an upstream condition, worst first', () => {
  it.each([
    [{}, 'ok', null],
    [{ lagBlocks: 3 }, 'ok', null],
    [{ lagBlocks: 7 }, 'lagging', '7 blocks behind the best head (more than 3)'],
    [{ badAnswer: 'receipt 0 names another block', lagBlocks: 7 }, 'bad_answers', 'receipt 0 names another block'],
    [{ backingOffMs: 1500, lagBlocks: 9 }, 'rate_limited', 'the node answered 429; nothing sent for 2 s'],
    [{ identity: 'unverified' as const }, 'verifying', 'chain id not checked yet'],
    [{ breaker: 'half_open' as const, identity: 'unverified' as const }, 'recovering', 'one probe let through after failures'],
    [{ breaker: 'open' as const, lastFailure: 'timeout' }, 'unreachable', 'timeout'],
    [
      { identity: 'refused' as const, identityProblem: 'eth_chainId answered 0x1 (1)', breaker: 'open' as const },
      'wrong_chain',
      'eth_chainId answered 0x1 (1)',
    ],
  ])('%j -> %s', (facts, name, reason) => {
    expect(conditionOf({ ...ok, ...facts })).toEqual({ name, reason });
  });
});

/** A monitor over facts the test sets, logging to a captured JSON log at debug. */
function monitored() {
  const log = captureLog();
  let facts: ConditionFacts = { ...ok, identity: 'unverified' };
  const changes: string[] = [];
  const monitor = createConditionMonitor({
    facts: () => facts,
    logger: pino({ level: 'debug' }, log.destination),
    upstream: 'alchemy',
    network: 'ethereum/mainnet',
    onChange: (to, from) => changes.push(`${from}->${to}`),
  });
  const become = (change: Partial<ConditionFacts>) => {
    facts = { ...facts, ...change };
    monitor.refresh();
  };
  const levels = () => log.lines.map((line) => `${line.level}:${line.from}->${line.to}`);
  return { monitor, become, changes, levels, log };
}

describe('the condition monitor: one line per change', () => {
  it('logs each change once, naming upstream, network, from, to and reason; the same condition again is no line', async () => {
    const { become, levels, log, changes } = monitored();
    become({ identity: 'verified' });
    become({ lagBlocks: 5 });
    become({ lagBlocks: 6 });
    become({ lagBlocks: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(levels()).toEqual(['30:verifying->ok', '40:ok->lagging', '40:lagging->ok']);
    expect(changes).toEqual(['verifying->ok', 'ok->lagging', 'lagging->ok']);
    expect(log.lines[1]).toMatchObject({
      upstream: 'alchemy',
      network: 'ethereum/mainnet',
      from: 'ok',
      to: 'lagging',
      reason: '5 blocks behind the best head (more than 3)',
      msg: 'upstream alchemy of ethereum/mainnet: ok -> lagging (5 blocks behind the best head (more than 3))',
    });
  });

  it('a dead node: its first probe cycle is warned, the next cycles are debug, coming back is warned again', async () => {
    const { become, levels } = monitored();
    become({ identity: 'verified' });
    become({ breaker: 'open', lastFailure: 'timeout', identity: 'unverified' });
    for (let cycle = 0; cycle < 3; cycle++) {
      become({ breaker: 'half_open' });
      become({ breaker: 'open' });
    }
    become({ breaker: 'half_open' });
    become({ breaker: 'closed' });
    become({ identity: 'verified' });
    // A second outage starts the count again.
    become({ breaker: 'open', identity: 'unverified' });
    become({ breaker: 'half_open' });
    become({ breaker: 'open' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(levels()).toEqual([
      '30:verifying->ok',
      '40:ok->unreachable',
      '40:unreachable->recovering',
      '40:recovering->unreachable',
      '20:unreachable->recovering',
      '20:recovering->unreachable',
      '20:unreachable->recovering',
      '20:recovering->unreachable',
      '20:unreachable->recovering',
      '40:recovering->verifying',
      '40:verifying->ok',
      '40:ok->unreachable',
      '40:unreachable->recovering',
      '40:recovering->unreachable',
    ]);
  });

  it('a 429 keeps the node rate_limited after its pause until an answer succeeds', () => {
    expect(conditionOf({ ...ok, backingOffMs: 0, rateLimitedSinceSuccess: true })).toEqual({
      name: 'rate_limited',
      reason: 'the node answered 429; asked again after its pause',
    });
    expect(conditionOf({ ...ok, rateLimitedSinceSuccess: false })).toEqual({ name: 'ok', reason: null });
  });
});
