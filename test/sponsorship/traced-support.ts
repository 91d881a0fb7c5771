import { type Address, concat, createPublicClient, type Hex, http, type PublicClient } from 'viem';
import { formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { Network } from '../../src/chains/registry.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { devnetPaymasters, type newEmptyAccount } from '../paymaster/support.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { forwardTo, rpcAnswer, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A contract that calls `sink` with its calldata after the first 4 bytes (so with a method of the caller's choice). */
export const relay: Address = '0x0000000000000000000000000000000000a11ce0';
/** A contract that does nothing (STOP). */
export const sink: Address = '0x00000000000000000000000000000000005111c0';
export const relayMethod = '0xaaaaaaaa';
export const sinkMethod = '0xbbbbbbbb';
/** Calls the relay, which calls the sink's method. */
export const throughRelay = { to: relay, value: 0n, data: `${relayMethod}${sinkMethod.slice(2)}` as Hex };

// CALLDATACOPY(0, 4, CALLDATASIZE - 4); CALL(GAS, sink, 0, 0, CALLDATASIZE - 4, 0, 0); POP; STOP.
const relayCode = `0x6004360360045f375f5f600436035f5f73${sink.slice(2)}5af15000` as Hex;

export interface TracedPolicyChain {
  anvil: Devnet;
  database: TestDatabase;
  /** A node in front of the anvil without debug_traceCall: -32601, as geth answers without the debug API. */
  noTraceNode: TestRpcServer;
  service: TestService;
  key: string;
  publicClient: PublicClient;
  stop(): Promise<void>;
}

const paymasters = { paymaster_v06: devnetPaymasters.v06, paymaster_v07: devnetPaymasters.v07 };
const network = (name: string, upstream: Record<string, unknown>) => ({
  chain: 'ethereum',
  network: name,
  chain_id: 31337,
  testnet: true,
  block_time_s: 1,
  upstreams: [{ batch_max_size: 1, ...upstream }],
  erc4337: paymasters,
});

/**
 * The service on one anvil (with the ERC-4337 contracts, the devnet paymasters, the relay and the
 * sink) as three networks: `devnet` (the anvil, with the bundler), `notrace` (a node without
 * debug_traceCall) and `denied` (the anvil with `methods: {deny: [debug_*]}`).
 */
export async function startTracedPolicyChain(): Promise<TracedPolicyChain> {
  const [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
  const noTraceNode = await startRpcServer(async (body, method) =>
    method === 'debug_traceCall'
      ? {
          body: rpcAnswer(body, {
            error: { code: -32601, message: 'the method debug_traceCall does not exist/is not available' },
          }),
        }
      : forwardTo(anvil.url)(body),
  );
  const prices = ['devnet', 'notrace', 'denied'].map((name) => ({
    chain: 'ethereum',
    network: name,
    contract: 'native',
    usd: '2000',
  }));
  const service = await startTestService({
    sharing: { anvil, database },
    settings: { bundler_keys: devnetExecutorKeys[0], sponsor_key: devnetSponsorKey, tokens: { prices } },
    chains: [
      { ...network('devnet', { url: anvil.url }), dev_methods: true, bundler: { enabled: true } },
      network('notrace', { url: noTraceNode.url }),
      network('denied', { url: anvil.url, methods: { deny: ['debug_*'] } }),
    ],
  });
  await installErc4337Contracts(anvil.url);
  const devnet = { config: service.service.ctx.config.chains[0]! } as Pick<Network, 'config'>;
  await installDevnetPaymasters(anvil.url, paymasterSetupsOf(devnet, service.service.ctx.config));
  const publicClient = createPublicClient({ chain: foundry, transport: http(anvil.url) }) as PublicClient;
  for (const [address, code] of [
    [relay, relayCode],
    [sink, '0x00'],
  ] as const)
    await publicClient.request({ method: 'anvil_setCode' as never, params: [address, code] as never });
  const { key } = await service.createKey();
  return {
    anvil,
    database,
    noTraceNode,
    service,
    key,
    publicClient,
    stop: async () => {
      await service.stop();
      await noTraceNode.close();
      await Promise.all([anvil.stop(), database.close()]);
    },
  };
}

type Account = Awaited<ReturnType<typeof newEmptyAccount>>;

/** An op of the account with its gas fields, as the sponsor endpoint takes it (its initCode or factory while it is not deployed). */
export async function opOf(
  publicClient: PublicClient,
  account: Account,
  calls: { to: Address; value: bigint; data: Hex }[],
): Promise<Record<string, unknown>> {
  const callData = await account.encodeCalls(calls);
  const deployed = (await publicClient.getCode({ address: account.address })) !== undefined;
  const { factory, factoryData } = deployed ? { factory: undefined, factoryData: undefined } : await account.getFactoryArgs();
  const gas = {
    sender: account.address,
    nonce: await account.getNonce(),
    callData,
    callGasLimit: 100_000n,
    verificationGasLimit: 400_000n,
    preVerificationGas: 60_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    signature: '0x' as Hex,
  };
  if (account.entryPoint.version === '0.6')
    return formatUserOperationRequest({
      ...gas,
      initCode: factory ? concat([factory, factoryData!]) : '0x',
      paymasterAndData: '0x',
    } as UserOperation<'0.6'>);
  return formatUserOperationRequest({ ...gas, factory, factoryData } as UserOperation<'0.7'>);
}
