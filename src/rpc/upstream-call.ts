import { withAnswerJudge } from '../chains/call-judge.ts';
import { isBlockRead, pinLatest } from '../chains/pin-latest.ts';
import { readNeedOf } from '../chains/read-need.ts';
import type { Network } from '../chains/registry.ts';
import { upstreamErrorAnswer, upstreamsRateLimited } from '../chains/upstream-refusal.ts';
import { UpstreamError } from '../core/upstream-error.ts';
import { formatCall, type JsonRpcCall } from '../jsonrpc/messages.ts';
import { splitRpcAnswer } from '../jsonrpc/raw-answer.ts';
import type { HistogramChild, Metrics } from '../observability/metrics.ts';
import { isWriteMethod } from './method-policy.ts';
import type { SentCall } from './send-rpc.ts';

/**
 * One call upstream, as JSON text. Writes reach every healthy upstream (more nodes gossip the
 * transaction); reads go to the upstream best able to answer what they need (their block, range,
 * method), a block read at `latest` pinned to the served tip, and answers bound for the cache judged
 * by the integrity checks. `sent`: what the cache says of the body (its params, whether it is stored);
 * absent, the body is the call itself and is not stored. Every upstream out of budget throws
 * `UpstreamsRateLimited`; other failures of the pool become the call's JSON-RPC error.
 */
export async function sendUpstream(
  metrics: Metrics,
  timer: HistogramChild,
  network: Network,
  call: JsonRpcCall,
  body: string,
  sent?: SentCall,
): Promise<string> {
  const started = performance.now();
  try {
    const params = sent === undefined ? call.params : sent.params;
    const stored = sent?.stored === true;
    let answer: Promise<string>;
    if (isWriteMethod(network.config.kind, call.method)) answer = network.pool.broadcast(body);
    else if (isBlockRead(call.method)) answer = sendBlockRead(network, call, body, params, stored);
    else answer = sendRead(network, call, body, params, stored);
    return (await answer).trim();
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    const { chain, network: name } = network.config;
    metrics.upstreamErrors.inc({ chain, network: name, reason: error.reason });
    if (error.reason === 'rate_limited') throw upstreamsRateLimited(error, network);
    return upstreamErrorAnswer(error, network, call.method, call.id);
  } finally {
    timer.observe((performance.now() - started) / 1000);
  }
}

function sendRead(network: Network, call: JsonRpcCall, body: string, params: unknown, stored: boolean): Promise<string> {
  const need = readNeedOf(call.method, params);
  return network.pool.send(body, stored ? withAnswerJudge(need, call.method, params, idJsonOf(call)) : need);
}

/**
 * A block read: at `latest` it is sent for the block at the served tip (across processes when they
 * share it), so it is never below an `eth_blockNumber` already answered. When the shared tip is above
 * every head this process knows and no upstream of it has that block yet, the local tip's block is
 * the newest there is to answer.
 */
async function sendBlockRead(network: Network, call: JsonRpcCall, body: string, params: unknown, stored: boolean) {
  const local = network.pool.tip.value;
  const tip = network.clusterTip.shared ? await network.clusterTip.agreed() : local;
  const pinned = pinLatest(call.method, params, tip);
  if (pinned === undefined) return sendRead(network, call, body, params, stored);
  const text = await sendRead(network, call, formatCall({ ...call, params: pinned }), pinned, stored);
  if (tip <= local || local < 0 || answersSomething(text, call)) return text;
  const atLocal = pinLatest(call.method, params, local)!;
  return sendRead(network, call, formatCall({ ...call, params: atLocal }), atLocal, stored);
}

function answersSomething(text: string, call: JsonRpcCall): boolean {
  const answer = splitRpcAnswer(text, idJsonOf(call));
  return answer?.kind === 'result' && answer.raw !== 'null';
}

const idJsonOf = (call: JsonRpcCall) => (call.id === undefined ? 'null' : JSON.stringify(call.id));
