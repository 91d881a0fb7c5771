import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface AdminResponse {
  readonly ok: boolean;
  readonly text: string;
}

/**
 * One admin API call over node:http(s). Not `fetch`: Node 20 compiles its bundled undici on the first
 * `fetch`, about 200 ms, which was most of what a one-line admin command took.
 */
export function sendAdminRequest(
  url: URL,
  options: { method: string; token: string; body?: string; timeoutMs: number },
): Promise<AdminResponse> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: options.method,
        headers: {
          authorization: `Bearer ${options.token}`,
          ...(options.body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) }),
        },
        timeout: options.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({ ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
