import { type Chain, createPublicClient, custom, defineChain, type PublicClient } from 'viem';
import { pinLatest } from './pin-latest.ts';
import { readNeedOf } from './read-need.ts';
import type { Network } from './registry.ts';

/** Multicall3's address on every chain that has it; the embedded devnet gets it at start. */
export const multicall3Address = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/** A JSON-RPC error answered by the node (a revert, invalid params), kept with its code and data for viem. */
class NodeRpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'NodeRpcError';
  }
}

let nextId = 1;

/**
 * A viem public client whose requests go through the network's upstream pool (routing, failover,
 * breakers), for the service's own reads: `readContract`, `multicall`, `getBlock`.
 */
export function publicClientFor(network: Network): PublicClient {
  return createPublicClient({
    chain: chainOf(network),
    transport: poolTransport(network),
    batch: { multicall: false },
  }) as PublicClient;
}

/** One public client per network, made on first use: what a service keeps to read its networks. */
export function publicClientsByNetwork(): (network: Network) => PublicClient {
  const clients = new Map<Network, PublicClient>();
  return (network) => {
    let client = clients.get(network);
    if (!client) {
      client = publicClientFor(network);
      clients.set(network, client);
    }
    return client;
  };
}

/** The network as viem's chain (its id, name and native currency; Multicall3 at its usual address). */
export function chainOf(network: Network): Chain {
  return defineChain({
    id: network.config.chainId,
    name: `${network.config.chain}/${network.config.network}`,
    nativeCurrency: { name: network.config.nativeSymbol, symbol: network.config.nativeSymbol, decimals: 18 },
    rpcUrls: { default: { http: [] } },
    contracts: { multicall3: { address: multicall3Address } },
  });
}

/** A viem transport over the network's upstream pool (for public and wallet clients of the service's own). */
export function poolTransport(network: Network) {
  async function send(method: string, params: unknown) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
    const text = await network.pool.send(body, readNeedOf(method, params));
    const answer = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (answer.error) throw new NodeRpcError(answer.error.message, answer.error.code, answer.error.data);
    return answer.result;
  }
  return custom(
    {
      async request({ method, params }: { method: string; params?: unknown }) {
        // The configured chain id is the network's (viem asks it before every transaction it signs).
        if (method === 'eth_chainId') return `0x${network.config.chainId.toString(16)}`;
        const sent = params ?? [];
        const tip = network.pool.tip.value;
        const result = await send(method, sent);
        // A block at `latest` is the node's newest (a transaction that landed a moment ago is in it), but
        // never older than the served tip: an answer from a node behind it is read again at the tip.
        const pinned = pinLatest(method, sent, tip);
        if (pinned !== undefined && blockNumberOf(result) < tip) return send(method, pinned);
        return result;
      },
    },
    { retryCount: 0 },
  );
}

/** The `number` of a block answer (Infinity for anything else, so that it is never taken as behind). */
function blockNumberOf(result: unknown): number {
  const number = (result as { number?: unknown } | null)?.number;
  return typeof number === 'string' && number.startsWith('0x') ? Number.parseInt(number, 16) : Number.POSITIVE_INFINITY;
}
