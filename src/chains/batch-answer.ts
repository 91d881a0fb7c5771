import { memberText, type RawAnswer, skipSpace, skipValue, splitRpcAnswer } from '../jsonrpc/raw-answer.ts';

/**
 * The answers of a JSON-RPC batch by the numeric id they carry, each as the exact `result` or `error`
 * text the node sent; `undefined` when the text is not an array of answers (a node that refuses
 * batches answers with one error object). Answers may come in any order, as JSON-RPC allows.
 *
 * @example splitBatchAnswer('[{"jsonrpc":"2.0","id":1,"result":"0x1"}]').get(1) // { kind: 'result', raw: '"0x1"' }
 */
export function splitBatchAnswer(text: string): Map<number, RawAnswer> | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '[') return undefined;
  const answers = new Map<number, RawAnswer>();
  i = skipSpace(text, i + 1);
  if (text[i] === ']') return answers;
  while (i < text.length) {
    const end = skipValue(text, i);
    if (end <= i) return undefined;
    const element = text.slice(i, end);
    const id = numericId(element);
    const answer = id === undefined ? undefined : splitRpcAnswer(element, String(id));
    if (id !== undefined && answer !== undefined) answers.set(id, answer);
    i = skipSpace(text, end);
    if (text[i] === ']') return answers;
    if (text[i] !== ',') return undefined;
    i = skipSpace(text, i + 1);
  }
  return undefined;
}

/** The `id` member of one answer object when it is a whole number (the ids a batcher assigns). */
function numericId(element: string): number | undefined {
  const raw = memberText(element, 'id');
  return raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}
