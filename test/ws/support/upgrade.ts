import { request } from 'node:http';

/** Sends a WebSocket upgrade request and returns the HTTP answer when it is refused (or 101). */
export function upgrade(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; upgraded: boolean; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request(url.replace('ws://', 'http://'), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
      timeout: 10_000,
    });
    req.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: '', upgraded: true, headers: response.headers });
    });
    req.on('response', (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, upgraded: false, headers: response.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
