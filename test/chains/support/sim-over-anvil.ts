import WebSocket from 'ws';
import type { Devnet } from '../../../src/chains/devnet.ts';
import { startTestAnvil } from '../../support/anvil.ts';
import type { SimBehaviour } from '../../support/provider-sim/behaviour.ts';
import { type ProviderSim, startProviderSim } from '../../support/provider-sim.ts';

/** Set-up and JSON-RPC helpers shared by the provider-sim-*.test.ts files. */

export const numberer = '0x000000000000000000000000000000000000b10c';
// anvil's first default account, unlocked for eth_sendTransaction.
export const funded = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

export interface Reply {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const cleanups: (() => Promise<void>)[] = [];

/** Stops, newest first, what the last test started; each test file registers it with `afterEach`. */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** A fresh anvil with `blocks` empty blocks mined, and a simulator in front of it. */
export async function simOverAnvil(
  behaviour: Partial<SimBehaviour> = {},
  blocks = 0,
): Promise<{ anvil: Devnet; sim: ProviderSim }> {
  const anvil = await startTestAnvil();
  cleanups.push(() => anvil.stop());
  if (blocks > 0) await result(anvil.url, 'anvil_mine', [hex(blocks)]);
  const sim = await startProviderSim({ upstream: anvil.url, upstreamWs: anvil.wsUrl, behaviour });
  cleanups.push(() => sim.close());
  return { anvil, sim };
}

export const hex = (value: number) => `0x${value.toString(16)}`;

export function post(url: string, body: unknown, timeoutMs = 10_000): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

export const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

export async function rpc(url: string, method: string, params: unknown[] = []): Promise<Reply> {
  return (await (await post(url, call(method, params))).json()) as Reply;
}

export async function result<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = await rpc(url, method, params);
  if (reply.error !== undefined) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

export async function blockHash(url: string, number: number): Promise<string> {
  return (await result<{ hash: string }>(url, 'eth_getBlockByNumber', [hex(number), false])).hash;
}

/** A test WebSocket client that keeps every message, with bounded waits. */
export async function openClient(url: string) {
  const socket = new WebSocket(url);
  const messages: Reply[] = [];
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Reply));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  cleanups.push(async () => socket.terminate());
  const waitFor = async (predicate: (message: Reply) => boolean, timeoutMs = 5_000): Promise<Reply> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no such WebSocket message within ${timeoutMs} ms`);
      await sleep(10);
    }
  };
  const request = (method: string, params: unknown[], id: number) => {
    socket.send(JSON.stringify(call(method, params, id)));
    return waitFor((message) => message.id === id);
  };
  const heads = () => messages.filter(isNotification).map(headerNumber);
  return { socket, messages, closed, waitFor, request, heads };
}

export function isNotification(message: Reply): boolean {
  return (message as { method?: string }).method === 'eth_subscription';
}

export const isHead = (number: number) => (message: Reply) => isNotification(message) && headerNumber(message) === number;

function headerNumber(message: Reply): number {
  return Number((message as unknown as { params: { result: { number: string } } }).params.result.number);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
