import { afterAll, beforeAll } from 'vitest';
import { forwardTo, type RpcServerAnswer, rpcAnswer, startRpcServer, type TestRpcServer } from './rpc-server.ts';
import { devnetChain, startTestService, type TestService } from './service.ts';

/**
 * In a describe block: what `start` starts, before its tests (given to `assign`, for the block's
 * variables), and `stop`ped after them.
 */
export function useStarted<T>(start: () => Promise<T>, stop: (started: T) => Promise<void>, assign: (started: T) => void): void {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    assign(started);
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
}

/** In a describe block: a service `start`ed, stopped, and one key of every scope it made with `createKey` (see `useStarted`). */
export function useStartedWithKey<T extends { stop(): Promise<void> }>(
  start: () => Promise<T>,
  createKey: (started: T) => Promise<{ key: string }>,
  assign: (started: T, key: string) => void,
): void {
  useStarted(
    async () => {
      const started = await start();
      return { started, key: (await createKey(started)).key };
    },
    ({ started }) => started.stop(),
    ({ started, key }) => assign(started, key),
  );
}

/** In a describe block: the service (as `startTestService()`) and one key of every scope. */
export function useTestServiceWithKey(assign: (started: { t: TestService; key: string }) => void): void {
  useStartedWithKey(
    startTestService,
    (t) => t.createKey(),
    (t, key) => assign({ t, key }),
  );
}

export interface ServiceWithSepolia {
  t: TestService;
  /** The real HTTP server `ethereum/sepolia` is configured on; it records every body it receives. */
  upstream: TestRpcServer;
  /** The test anvil behind `ethereum/devnet`. */
  anvilUrl: string;
  /** A key of every scope. */
  key: string;
  /** A key with `rpc:read` only. */
  readKey: string;
  stop(): Promise<void>;
}

/**
 * The service with `ethereum/devnet` on its anvil and `ethereum/sepolia` (a testnet, chain id 31337,
 * no dev_methods) on a real HTTP server answering each call with `answer` (given the anvil's URL).
 */
export async function startServiceWithSepolia(
  answer: (body: string, method: string, anvilUrl: string) => Promise<RpcServerAnswer>,
): Promise<ServiceWithSepolia> {
  let anvilUrl = '';
  const upstream = await startRpcServer((body, method) => answer(body, method, anvilUrl));
  const t = await startTestService({
    chainsFor: (url) => {
      anvilUrl = url;
      return [
        devnetChain(url),
        { chain: 'ethereum', network: 'sepolia', chain_id: 31337, testnet: true, upstreams: [{ url: upstream.url }] },
      ];
    },
  }).catch(async (error: unknown) => {
    await upstream.close();
    throw error;
  });
  const readKey = (await t.createKey({ scopes: ['rpc:read'] })).key;
  const key = (await t.createKey()).key;
  return {
    t,
    upstream,
    anvilUrl,
    key,
    readKey,
    async stop() {
      await t.stop();
      await upstream.close();
    },
  };
}

/** In a describe block: `startServiceWithSepolia(answer)` (see `useStarted`). */
export function useServiceWithSepolia(
  answer: Parameters<typeof startServiceWithSepolia>[0],
  assign: (started: ServiceWithSepolia) => void,
): void {
  useStarted(
    () => startServiceWithSepolia(answer),
    (started) => started.stop(),
    assign,
  );
}

/** A sepolia upstream answering every call with chain id 31337 (`0x7a69`), whatever its method. */
export const answerChainId = async (body: string): Promise<RpcServerAnswer> => ({ body: rpcAnswer(body, { result: '0x7a69' }) });

/** A sepolia upstream forwarding every call to the anvil but refusing `method` with -32601, as a node without it does. */
export function forwardAllBut(method: string) {
  return async (body: string, called: string, anvilUrl: string): Promise<RpcServerAnswer> =>
    called === method
      ? { body: rpcAnswer(body, { error: { code: -32601, message: `the method ${method} does not exist` } }) }
      : forwardTo(anvilUrl)(body);
}
