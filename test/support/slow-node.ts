import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RpcCall {
  id?: unknown;
  method?: string;
}

export interface SlowNode {
  server: Server;
  url: string;
  /** Resolves when a call of eth_gasPrice (the test's own slow call, not a head poll) arrives. */
  slowCallReceived: Promise<void>;
  /** How the stall probe (id "stall-probe") came: alone, or inside a batch. */
  probes: { alone: number; batched: number };
}

/**
 * A JSON-RPC node on 127.0.0.1 (chain id 31337) that answers eth_chainId at once and every other call
 * after `slowAnswerMs`, a batch holding one included (a node answers a batch when its slowest call is done).
 */
export function startSlowNode(slowAnswerMs: number): Promise<SlowNode> {
  let onSlowCall: () => void = () => {};
  const slowCallReceived = new Promise<void>((resolve) => {
    onSlowCall = resolve;
  });
  const probes = { alone: 0, batched: 0 };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      let parsed: RpcCall | RpcCall[];
      try {
        parsed = JSON.parse(body) as RpcCall | RpcCall[];
      } catch {
        response.writeHead(400).end();
        return;
      }
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      if (calls.some((call) => call.id === 'stall-probe')) probes[Array.isArray(parsed) ? 'batched' : 'alone']++;
      if (calls.some((call) => call.method === 'eth_gasPrice')) onSlowCall();
      const answers = calls.map((call) => ({
        jsonrpc: '2.0',
        id: call.id ?? null,
        result: call.method === 'eth_chainId' ? '0x7a69' : '0x2a',
      }));
      const send = () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      };
      if (calls.every((call) => call.method === 'eth_chainId')) send();
      else setTimeout(send, slowAnswerMs);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, slowCallReceived, probes });
    });
  });
}
