import { splitRpcAnswer } from '../jsonrpc/raw-answer.ts';
import { checkCallAnswer, hasCallAnswerCheck } from './answer-integrity.ts';
import type { AnswerVerdict, ReadNeed } from './read-need.ts';

const nullByHash: AnswerVerdict = {
  kind: 'missing',
  detail: 'null for a lookup by hash: another upstream may have it (a load balancer over unsynced nodes)',
};

/**
 * `need` with a judge for answers about to be stored (a cache), whose every reader would get them:
 * - an answer that contradicts the call it answers (`checkCallAnswer`: a block of another number, a
 *   receipt of another transaction, logs out of their range or order) is `corrupt`: the pool asks
 *   another upstream and marks the one that answered;
 * - a `null` for a lookup by hash is `missing`: another upstream is asked, and `null` is answered only
 *   when every upstream says so. A node's head cannot tell: one node of a load balancer may lack a
 *   transaction its twin mined, while the head both report together is the newest.
 * `need` itself when neither applies: nothing is allocated for it.
 *
 * @example withAnswerJudge(readNeedOf('eth_getBlockByNumber', ['0x10', false]), 'eth_getBlockByNumber', ['0x10', false], '1')
 */
export function withAnswerJudge(need: ReadNeed, method: string, params: unknown, idJson: string): ReadNeed {
  const checked = hasCallAnswerCheck(method);
  if (!checked && !need.byHash) return need;
  const judge = (text: string): AnswerVerdict => {
    const answer = splitRpcAnswer(text, idJson);
    if (answer?.kind !== 'result') return undefined;
    if (answer.raw === 'null') return need.byHash ? nullByHash : undefined;
    const problem = checked ? checkCallAnswer(method, params, answer.raw) : undefined;
    return problem === undefined ? undefined : { kind: 'corrupt', detail: `${problem.code}: ${problem.detail}` };
  };
  return { ...need, judge };
}
