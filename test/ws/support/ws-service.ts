import type { KyselyPlugin } from 'kysely';
import type { DestinationStream } from 'pino';
import type { Devnet } from '../../../src/chains/devnet.ts';
import { startTestAnvil } from '../../support/anvil.ts';
import { createTestDatabase } from '../../support/database.ts';
import { jsonRpc } from '../../support/json-rpc.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { useStartedWithKey } from '../../support/service-setups.ts';
import { startWsProxy, type WsProxy } from './ws-proxy.ts';

export interface WsTestService {
  readonly t: TestService;
  readonly anvil: Devnet;
  /** The counting proxy Blockyard's upstream WebSocket goes through (when asked for). */
  readonly proxy?: WsProxy;
  /** With `upstreams: n`, one proxy per upstream of `ethereum/devnet`, in config order. */
  readonly proxies: readonly WsProxy[];
  /** `ws://…/v1/ws/{path}` with the key as `?apiKey=`. */
  wsUrl(key: string, path?: string): string;
  /** A JSON-RPC call straight to anvil over HTTP. */
  anvilCall(method: string, params?: unknown[]): Promise<unknown>;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** Makes the service's key lookups (api_keys joined with accounts) take `ms` longer; 0 ends it. */
  slowKeyReads(ms: number): void;
  stop(): Promise<void>;
}

/**
 * The whole service on a real anvil whose WebSocket is configured as `ethereum/devnet`'s ws_url
 * (through a counting proxy when `viaProxy`); `ethereum/mainnet` has no ws_url. With `upstreams: n`,
 * `ethereum/devnet` has n upstreams on the same anvil, each WebSocket through its own proxy, and a 1 s
 * block time (head polls and the feed's lag check every second).
 */
export async function startWsTestService(
  options: {
    viaProxy?: boolean;
    upstreams?: number;
    settings?: Record<string, unknown>;
    /** Where the service's log goes, at `logLevel` (default: silent). */
    logDestination?: DestinationStream;
    logLevel?: string;
  } = {},
): Promise<WsTestService> {
  const [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
  const proxyCount = options.upstreams ?? (options.viaProxy ? 1 : 0);
  const proxies = await Promise.all(Array.from({ length: proxyCount }, () => startWsProxy(anvil.wsUrl)));
  const proxy = proxies[0];
  const upstreams =
    proxies.length > 0 ? proxies.map((p) => ({ url: anvil.url, ws_url: p.url })) : [{ url: anvil.url, ws_url: anvil.wsUrl }];
  const keyReads = keyReadDelay();
  const shared = { anvil, database: { ...database, db: database.db.withPlugin(keyReads.plugin) } } as unknown as TestService;
  const t = await startTestService({
    sharing: shared,
    settings: options.settings,
    logDestination: options.logDestination,
    logLevel: options.logLevel,
    chains: [
      {
        chain: 'ethereum',
        network: 'devnet',
        chain_id: 31337,
        testnet: true,
        dev_methods: true,
        upstreams,
        ...(options.upstreams ? { block_time_s: 1 } : {}),
      },
      { chain: 'ethereum', network: 'mainnet', chain_id: 31337, upstreams: [{ url: anvil.url }] },
    ],
  });
  const base = t.url.replace('http://', 'ws://');
  return {
    t,
    anvil,
    proxy,
    proxies,
    wsUrl: (key, path = 'ethereum/devnet') => `${base}/v1/ws/${path}?apiKey=${encodeURIComponent(key)}`,
    anvilCall: (method, params = []) => jsonRpc(anvil.url, method, params),
    async metric(name, labels = {}) {
      const text = await (await fetch(`${t.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) &&
            Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
        );
      return line ? Number(line.split(' ').at(-1)) : 0;
    },
    slowKeyReads: (ms) => {
      keyReads.ms = ms;
    },
    async stop() {
      await t.stop();
      await Promise.all([anvil.stop(), database.close(), ...proxies.map((p) => p.close())]);
    },
  };
}

/** In a describe block: `startWsTestService()` and one key of every scope (see `useStartedWithKey`). */
export function useWsServiceWithKey(
  assign: (started: { s: WsTestService; key: string }) => void,
  options: Parameters<typeof startWsTestService>[0] = {},
): void {
  useStartedWithKey(
    () => startWsTestService(options),
    (s) => s.t.createKey(),
    (s, key) => assign({ s, key }),
  );
}

/** A Kysely plugin that delays the answer of the authenticator's key lookup by `ms` (0: none). */
function keyReadDelay() {
  const lookups = new Set<string>();
  const state = {
    ms: 0,
    plugin: {
      transformQuery({ node, queryId }) {
        const lookup =
          node.kind === 'SelectQueryNode' && node.joins !== undefined && JSON.stringify(node.from).includes('"api_keys"');
        if (lookup) lookups.add(queryId.queryId);
        return node;
      },
      async transformResult({ queryId, result }) {
        if (lookups.delete(queryId.queryId) && state.ms > 0) await new Promise((resolve) => setTimeout(resolve, state.ms));
        return result;
      },
    } satisfies KyselyPlugin,
  };
  return state;
}
