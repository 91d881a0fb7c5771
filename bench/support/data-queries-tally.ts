// What a run of data queries got back: answers by label, one message per label, and outcomes.
import type { Answer, Outcome } from './data-queries-client.ts';

/** Answers by label (`200`, `429`, `rpc -32602`, ...), and one message per label. */
export interface AnswerTally {
  labels: Map<string, number>;
  messages: Map<string, string>;
  outcomes: Record<Outcome, number>;
}

export function createTally(): AnswerTally {
  return { labels: new Map(), messages: new Map(), outcomes: { accepted: 0, refused: 0, unserved: 0, failed: 0 } };
}

export function countAnswer(tally: AnswerTally, answer: Answer): void {
  tally.labels.set(answer.label, (tally.labels.get(answer.label) ?? 0) + 1);
  if (answer.message && !tally.messages.has(answer.label)) tally.messages.set(answer.label, answer.message);
  tally.outcomes[answer.outcome]++;
}
