import { describe, expect, it } from 'vitest';
import {
  sendWithHeadWitness,
  splitWitnessed,
  witnessAhead,
  witnessDepth,
  witnessedBlock,
} from '../../src/chains/head-witness.ts';
import type { PooledUpstream } from '../../src/chains/pooled-upstream.ts';
import { readNeedOf } from '../../src/chains/read-need.ts';
import { RetryableRpcError } from '../../src/chains/retryable.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';

const witness = (head: number) => `{"jsonrpc":"2.0","id":"blockyard-head-witness","result":"0x${head.toString(16)}"}`;
const logsAnswer = (logs: string) => `{"jsonrpc":"2.0","id":7,"result":[${logs}]}`;
const oneLog = '{"address":"0xab","topics":["0x01"],"data":"0x","blockNumber":"0x64","logIndex":"0x0"}';
const body = '{"jsonrpc":"2.0","id":7,"method":"eth_getLogs","params":[{"fromBlock":"0x64","toBlock":"0x64"}]}';
const need = readNeedOf('eth_getLogs', [{ fromBlock: '0x64', toBlock: '0x64' }]);

describe('splitWitnessed', () => {
  it('takes the witness first or last, the call answer as the node wrote it', () => {
    expect(splitWitnessed(`[${witness(100)},${logsAnswer(oneLog)}]`)).toEqual({ head: 100, answer: logsAnswer(oneLog) });
    expect(splitWitnessed(` [ ${logsAnswer(oneLog)} ,\n${witness(99)} ] `)).toEqual({ head: 99, answer: logsAnswer(oneLog) });
    // An empty result has no braces inside: it is not taken for the witness.
    expect(splitWitnessed(`[${logsAnswer('')},${witness(5)}]`)).toEqual({ head: 5, answer: logsAnswer('') });
  });

  it('is undefined when the answer is no two-call batch with the witness', () => {
    expect(splitWitnessed(logsAnswer(oneLog))).toBeUndefined();
    expect(
      splitWitnessed('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}'),
    ).toBeUndefined();
    const witnessError = '{"jsonrpc":"2.0","id":"blockyard-head-witness","error":{"code":-32601,"message":"no"}}';
    expect(splitWitnessed(`[${witnessError},${logsAnswer(oneLog)}]`)).toBeUndefined();
    expect(splitWitnessed(`[${witness(1).replace('blockyard-head-witness', '7')},${logsAnswer(oneLog)}]`)).toBeUndefined();
  });
});

describe('witnessedBlock', () => {
  it('a single eth_getLogs ending near the tip (or at latest); not deeper ranges, other methods or batches', () => {
    expect(witnessedBlock(need, 100)).toBe(100);
    expect(witnessedBlock(need, 100 + witnessDepth - 1)).toBe(100);
    expect(witnessedBlock(need, 100 + witnessDepth)).toBe(-1);
    expect(witnessedBlock(readNeedOf('eth_getLogs', [{ fromBlock: '0x1' }]), 300)).toBe(300);
    // Just past the tip: a node may have it already. Further: answered up to the node's head, which must reach the tip.
    expect(witnessedBlock(need, 100 - witnessAhead)).toBe(100);
    expect(witnessedBlock(need, 100 - witnessAhead - 1)).toBe(100 - witnessAhead - 1);
    expect(witnessedBlock(readNeedOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0xffffff' }]), 300)).toBe(300);
    expect(witnessedBlock(need, -1)).toBe(-1);
    expect(witnessedBlock(readNeedOf('eth_getBlockByNumber', ['0x64', false]), 100)).toBe(-1);
    expect(witnessedBlock({ ...need, methods: ['eth_getLogs', 'eth_getLogs'] }, 100)).toBe(-1);
  });
});

/** A pooled upstream that answers from a script; only what the witness uses is there. */
function scriptedUpstream(answers: ((sent: string) => string)[], head = 100) {
  const sent: string[] = [];
  const upstream = {
    head,
    costOf: () => 10,
    async send(text: string) {
      sent.push(text);
      const next = answers.shift();
      if (!next) throw new Error('no answer scripted');
      return next(text);
    },
  } as unknown as PooledUpstream;
  return { upstream, sent };
}

const witnessing = (resend: boolean) => ({ block: 100, resend, onBehind: () => undefined });

describe('sendWithHeadWitness', () => {
  it('sends the witness first and answers the call once the node has the block', async () => {
    const { upstream, sent } = scriptedUpstream([() => `[${witness(100)},${logsAnswer(oneLog)}]`]);
    expect(await sendWithHeadWitness(upstream, body, need, witnessing(true))).toBe(logsAnswer(oneLog));
    expect(sent).toEqual([`[{"jsonrpc":"2.0","id":"blockyard-head-witness","method":"eth_blockNumber","params":[]},${body}]`]);
  });

  it('sends again while the node behind answered, up to three times, then throws the last answer as behind', async () => {
    const behind = () => `[${witness(99)},${logsAnswer('')}]`;
    const caughtUp = scriptedUpstream([behind, behind, () => `[${witness(100)},${logsAnswer(oneLog)}]`]);
    expect(await sendWithHeadWitness(caughtUp.upstream, body, need, witnessing(true))).toBe(logsAnswer(oneLog));
    expect(caughtUp.sent).toHaveLength(3);

    const never = scriptedUpstream([behind, behind, behind, behind, behind]);
    let behindAnswers = 0;
    const counted = { ...witnessing(true), onBehind: () => behindAnswers++ };
    const error = await sendWithHeadWitness(never.upstream, body, need, counted).catch((thrown: unknown) => thrown);
    expect(behindAnswers).toBe(4);
    expect(error).toBeInstanceOf(RetryableRpcError);
    expect((error as RetryableRpcError).kind).toBe('behind');
    expect((error as RetryableRpcError).text).toBe(logsAnswer(''));
    expect(never.sent).toHaveLength(4);

    const once = scriptedUpstream([behind, behind]);
    await expect(sendWithHeadWitness(once.upstream, body, need, witnessing(false))).rejects.toBeInstanceOf(RetryableRpcError);
    expect(once.sent).toHaveLength(1);
  });

  it('an error another node may not give is the answer; a rate limit or a node behind is sent alone, to be judged as it always is', async () => {
    const tooWide = '{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"query returned more than 10000 results"}}';
    const refused = scriptedUpstream([() => `[${witness(100)},${tooWide}]`]);
    expect(await sendWithHeadWitness(refused.upstream, body, need, witnessing(true))).toBe(tooWide);
    expect(refused.sent).toHaveLength(1);

    const rateLimited = '{"jsonrpc":"2.0","id":7,"error":{"code":429,"message":"too many requests"}}';
    const { upstream, sent } = scriptedUpstream([() => `[${witness(100)},${rateLimited}]`, () => rateLimited]);
    expect(await sendWithHeadWitness(upstream, body, need, witnessing(true))).toBe(rateLimited);
    expect(sent.at(-1)).toBe(body);
  });

  it('a 4xx page for the batch: the call alone, from then on without trying', async () => {
    const { upstream, sent } = scriptedUpstream([
      () => {
        throw new UpstreamError('http_status', 'upstream answered HTTP 400', { status: 400 });
      },
      () => logsAnswer(oneLog),
      () => logsAnswer(oneLog),
    ]);
    expect(await sendWithHeadWitness(upstream, body, need, witnessing(true))).toBe(logsAnswer(oneLog));
    expect(await sendWithHeadWitness(upstream, body, need, witnessing(true))).toBe(logsAnswer(oneLog));
    expect(sent).toEqual([expect.stringMatching(/^\[/), body, body]);
    const failing = scriptedUpstream([
      () => {
        throw new UpstreamError('http_status', 'upstream answered HTTP 503', { status: 503 });
      },
    ]);
    await expect(sendWithHeadWitness(failing.upstream, body, need, witnessing(true))).rejects.toThrow(/HTTP 503/);
  });

  it('an upstream that refuses batches gets the call alone, from then on without trying', async () => {
    const refusal = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}';
    const { upstream, sent } = scriptedUpstream([() => refusal, () => logsAnswer(oneLog), () => logsAnswer(oneLog)]);
    expect(await sendWithHeadWitness(upstream, body, need, witnessing(true))).toBe(logsAnswer(oneLog));
    expect(await sendWithHeadWitness(upstream, body, need, witnessing(true))).toBe(logsAnswer(oneLog));
    expect(sent).toEqual([expect.stringMatching(/^\[/), body, body]);
  });
});
