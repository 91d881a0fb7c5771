import type { Dispatcher } from 'undici';

/** What one POST answered: its status, the first bytes of its body, and its Retry-After. */
export interface PostAnswer {
  readonly status: number;
  readonly body: string;
  readonly retryAfter: string | undefined;
}

/** The whole exchange ran past its deadline (named like AbortSignal.timeout's reason). */
export class PostTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/** Past this many body bytes the connection is closed rather than read to the end. */
const maxReadBytes = 64 * 1024;

const parsedUrls = new Map<string, { origin: string; path: string }>();

/** A webhook's URL split as undici's dispatch takes it; parsed once per URL (a bounded cache). */
function splitUrl(url: string): { origin: string; path: string } {
  let parsed = parsedUrls.get(url);
  if (parsed === undefined) {
    const { origin, pathname, search } = new URL(url);
    parsed = { origin, path: `${pathname}${search}` };
    if (parsedUrls.size >= 10_000) parsedUrls.clear();
    parsedUrls.set(url, parsed);
  }
  return parsed;
}

/**
 * One POST through the dispatcher's own handler interface: no response stream, async iterator or
 * abort signal per request (undici's `request()` makes all three), which is most of what a delivery
 * costs besides the socket. One timer bounds the whole exchange, from the queue for a connection to
 * the last byte read. Keeps the first `keepBytes` of the answer as text; reads the rest up to 64 KiB
 * so the connection stays reusable, and closes it past that.
 */
export function postOnce(
  dispatcher: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; keepBytes: number },
): Promise<PostAnswer> {
  const { origin, path } = splitUrl(url);
  return new Promise<PostAnswer>((resolve, reject) => {
    let settled = false;
    let abort: ((reason?: Error) => void) | undefined;
    let status = 0;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else
        resolve({
          status,
          body: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
          retryAfter,
        });
    };
    const timer = setTimeout(() => {
      const timeout = new PostTimeout(`no answer within ${options.timeoutMs} ms`);
      settle(timeout);
      abort?.(timeout);
    }, options.timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        if (settled) abortRequest();
        else abort = abortRequest;
      },
      onHeaders(statusCode, rawHeaders) {
        if (statusCode < 200) return true;
        status = statusCode;
        for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
          const name = rawHeaders[index]!;
          if (name.length === 11 && name.toString('latin1').toLowerCase() === 'retry-after') {
            retryAfter = rawHeaders[index + 1]!.toString('latin1');
            break;
          }
        }
        return true;
      },
      onData(chunk) {
        seen += chunk.length;
        if (kept < options.keepBytes) {
          const part = chunk.length <= options.keepBytes - kept ? chunk : chunk.subarray(0, options.keepBytes - kept);
          chunks.push(Buffer.from(part));
          kept += part.length;
        }
        if (seen > maxReadBytes) {
          // A receiver answering megabytes gets its connection closed: what was kept is the answer.
          settle(undefined);
          abort?.();
          return false;
        }
        return true;
      },
      onComplete() {
        settle(undefined);
      },
      onError(error) {
        settle(error);
      },
    };
    dispatcher.dispatch({ origin, path, method: 'POST', headers, body }, handler);
  });
}
