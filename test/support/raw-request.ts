import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected freely
  json(): any;
}

/**
 * One request with exactly the path, headers and body bytes given (fetch normalises paths, refuses a
 * GET with a body and re-encodes text): for hostile-input tests. Bounded by `timeoutMs`.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const headers = { ...options.headers };
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, timeout: options.timeoutMs ?? 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in time`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
