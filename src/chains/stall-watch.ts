import { UpstreamError } from '../core/upstream-error.ts';

/**
 * A node that is stopped (SIGSTOP, a frozen VM, packets dropped) accepts connections and never
 * answers: calls would wait for the whole upstream timeout (30 s). When a call has waited
 * `suspectAfterMs` and the node has answered nothing meanwhile, one cheap probe is sent; if that gets
 * no answer within `probeTimeoutMs` either, every waiting call fails as a timeout (failed over, or
 * -32603 to the client) instead of waiting on. A node busy with one long call still answers the
 * probe, so long calls on a live node are never cut. A head poll, as cheap as the probe, is suspected
 * sooner (`pollSuspectAfterMs`): an idle node that stopped is noticed soon after its next poll.
 */
export interface StallWatch {
  /** `send`, raced against the watch; `poll`: a call as cheap as the probe (a head poll). */
  watch(send: () => Promise<string>, options?: { poll?: boolean }): Promise<string>;
}

export function createStallWatch(options: {
  /** Sends the probe straight to the node. */
  probe: () => Promise<unknown>;
  suspectAfterMs?: number;
  pollSuspectAfterMs?: number;
  probeTimeoutMs?: number;
  /** A probe deadline firing this much later than due means this process was starved, not the node. */
  starvedAfterMs?: number;
  /**
   * Called once when the node answers (a probe or a call it was sent) after it was taken for stalled:
   * it was slow, not stopped, or it was continued. Errors are no such sign (a stopped node's calls end
   * in timeouts too).
   */
  onAnsweredAfterStall?: () => void;
}): StallWatch {
  // A head poll every second, then 0.65 s for a poll: an idle node that stopped is reported within 2 s
  // (issue 32) with room for a loaded machine. A probe is one cheap call; 500 ms covers a new TLS
  // connection to a node up to ~150 ms away. A poll answers in under 150 ms from all but far nodes.
  const { suspectAfterMs = 300, pollSuspectAfterMs = 150, probeTimeoutMs = 500, starvedAfterMs = 100 } = options;
  const waiting = new Set<(error: Error) => void>();
  let lastAnswerAt = performance.now();
  let probing: Promise<boolean> | undefined;
  let stalledNow = false;
  const answeredForReal = () => {
    if (!stalledNow) return;
    stalledNow = false;
    options.onAnsweredAfterStall?.();
  };

  /**
   * True when the node answered the probe (or anything else) within `probeTimeoutMs`. A deadline that
   * fires late means this process was starved (a loaded machine, a long GC): the answer may be waiting
   * unread in the socket, so that window proves nothing and another is given, at most twice.
   */
  function probeAnswers(): Promise<boolean> {
    probing ??= new Promise<boolean>((resolve) => {
      const probeStartedAt = performance.now();
      let timer: NodeJS.Timeout;
      const armDeadline = (windowsLeft: number) => {
        const due = performance.now() + probeTimeoutMs;
        timer = setTimeout(() => {
          const late = performance.now() - due;
          setImmediate(() => {
            if (lastAnswerAt > probeStartedAt) resolve(true);
            else if (late > starvedAfterMs && windowsLeft > 0) armDeadline(windowsLeft - 1);
            else resolve(false);
          });
        }, probeTimeoutMs);
      };
      armDeadline(2);
      // A refusal or an error answer is an answer too: the node is not stalled.
      const answered = () => {
        clearTimeout(timer);
        resolve(true);
      };
      options.probe().then(() => {
        answered();
        answeredForReal();
      }, answered);
    }).finally(() => {
      probing = undefined;
    });
    return probing;
  }

  function stalled() {
    stalledNow = true;
    const error = new UpstreamError('timeout', 'upstream stopped answering');
    for (const abandon of waiting) abandon(error);
    waiting.clear();
  }

  return {
    watch(send, watchOptions = {}) {
      const startedAt = performance.now();
      return new Promise<string>((resolve, reject) => {
        let settled = false;
        const abandon = (error: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(suspect);
          reject(error);
        };
        const judge = (answered: boolean) => {
          if (answered) lastAnswerAt = performance.now();
          else if (!settled) stalled();
        };
        const sending = send();
        const suspect = setTimeout(
          () => {
            // After this loop turn's I/O: an answer that waited behind a busy event loop is not a stall.
            setImmediate(() => {
              if (settled || lastAnswerAt > startedAt) return;
              void probeAnswers().then(judge);
            });
          },
          watchOptions.poll ? pollSuspectAfterMs : suspectAfterMs,
        );
        suspect.unref();
        waiting.add(abandon);
        sending.then(
          (text) => {
            lastAnswerAt = performance.now();
            answeredForReal();
            waiting.delete(abandon);
            if (settled) return;
            settled = true;
            clearTimeout(suspect);
            resolve(text);
          },
          (error: unknown) => {
            lastAnswerAt = performance.now();
            waiting.delete(abandon);
            if (settled) return;
            settled = true;
            clearTimeout(suspect);
            reject(error);
          },
        );
      });
    },
  };
}
