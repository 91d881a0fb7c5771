import { checkCallAnswer, hasCallAnswerCheck } from './answer-integrity.ts';
import { splitRpcAnswer } from './raw-answer.ts';
import type { AnswerVerdict, ReadNeed } from './read-need.ts';

/**
 * `need` with a judge that refuses an answer contradicting the call it answers (`checkCallAnswer`: a
 * block of another number, a receipt of another transaction, logs out of their range or order), so
 * the pool asks another upstream and marks the one that answered. `need` itself when the method has
 * no check: nothing is allocated for it. For answers about to be stored (a cache), whose every reader
 * would get them.
 *
 * @example withAnswerJudge(readNeedOf('eth_getBlockByNumber', ['0x10', false]), 'eth_getBlockByNumber', ['0x10', false], '1')
 */
export function withAnswerJudge(need: ReadNeed, method: string, params: unknown, idJson: string): ReadNeed {
  if (!hasCallAnswerCheck(method)) return need;
  const judge = (text: string): AnswerVerdict => {
    const answer = splitRpcAnswer(text, idJson);
    if (answer?.kind !== 'result') return undefined;
    const problem = checkCallAnswer(method, params, answer.raw);
    return problem === undefined ? undefined : { kind: 'corrupt', detail: `${problem.code}: ${problem.detail}` };
  };
  return { ...need, judge };
}
