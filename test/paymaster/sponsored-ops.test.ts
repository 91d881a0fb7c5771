import { type Address, createPublicClient, type Hex, http, type PublicClient, parseEventLogs } from 'viem';
import {
  type BundlerClient,
  createBundlerClient,
  formatUserOperationRequest,
  type SmartAccount,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyUserOperation } from '../../src/bundler/user-operation.ts';
import { entryPointV06Abi, entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { paymasterDeposit } from '../../src/paymaster/deposit.ts';
import {
  paymasterGasLimits,
  type SponsoredFields,
  sponsoredPaymasterFields,
  stubPaymasterFields,
} from '../../src/paymaster/paymaster-data.ts';
import { readPaymasterSenderNonce } from '../../src/paymaster/paymaster-reads.ts';
import type { PaymasterSetup } from '../../src/paymaster/paymaster-setup.ts';
import { bundlerUrlOf, callBundler, generousFees } from '../bundler/support.ts';
import { newEmptyAccount, type SponsoredChain, startSponsoredChain } from './support.ts';

const chainId = 31337;
const now = () => Math.floor(Date.now() / 1000);
/** viem takes the fields without our version tag. */
const forViem = ({ version: _version, ...fields }: SponsoredFields) => fields;
/** The first op (which deploys the account, and is the v0.6 paymaster's first write for it) carries 4 KB. */
const callDataOf = (round: number): Hex => `0x${'12'.repeat(round === 1 ? 4000 : 2)}`;

describe('ops sponsored by the verifying paymaster, through the bundler', () => {
  let sponsored: SponsoredChain;
  let publicClient: PublicClient;
  let url: string;

  beforeAll(async () => {
    sponsored = await startSponsoredChain();
    publicClient = createPublicClient({ chain: foundry, transport: http(sponsored.chain.service.anvil.url) }) as PublicClient;
    url = bundlerUrlOf(sponsored.chain.service.url);
  }, 120_000);
  afterAll(async () => {
    await sponsored?.chain.service.stop();
  });

  const setupOf = (version: '0.6' | '0.7'): PaymasterSetup => {
    const setup = sponsored.setups[version];
    if (!setup) throw new Error(`no ${version} paymaster`);
    return setup;
  };

  /** viem's bundler client whose paymaster is ours: stub data to estimate, then the signed fields. */
  function sponsoringClient(
    version: '0.6' | '0.7',
    range: () => { validUntil: number; validAfter: number } = () => ({ validUntil: now() + 600, validAfter: 0 }),
  ): BundlerClient {
    const setup = setupOf(version);
    return createBundlerClient({
      client: publicClient,
      chain: foundry,
      transport: http(url, { fetchOptions: { headers: { 'x-api-key': sponsored.key } }, retryCount: 0 }),
      pollingInterval: 100,
      userOperation: { estimateFeesPerGas: () => generousFees(publicClient) },
      paymaster: {
        getPaymasterStubData: async () => forViem(stubPaymasterFields(setup)),
        getPaymasterData: async (request) => {
          const op = { signature: '0x', ...request } as unknown as AnyUserOperation;
          const senderNonce = version === '0.6' ? await readPaymasterSenderNonce(publicClient, setup, op.sender) : undefined;
          return forViem(await sponsoredPaymasterFields({ setup, chainId, op, ...range(), senderNonce }));
        },
      },
    });
  }

  /** An op of `account` (sending nothing anywhere) prepared and signed with sponsored fields, not sent. */
  async function preparedOp(client: BundlerClient, account: SmartAccount) {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const prepared = await client.prepareUserOperation({ account, calls: [{ to: recipient, value: 0n, data: '0x' }] });
    return prepared as unknown as UserOperation;
  }

  async function send(op: UserOperation, account: SmartAccount) {
    const signature = await account.signUserOperation(op as never);
    return callBundler(url, sponsored.key, 'eth_sendUserOperation', [
      formatUserOperationRequest({ ...op, signature }),
      account.entryPoint.address,
    ]);
  }

  it.each(['0.7', '0.6'] as const)(
    'v%s: an account with no ETH deploys and calls, and the paymaster deposit pays',
    async (version) => {
      const setup = setupOf(version);
      const account = await newEmptyAccount(publicClient, version);
      const client = sponsoringClient(version);
      const depositBefore = await paymasterDeposit(publicClient, setup);

      for (const round of [1, 2]) {
        const recipient = privateKeyToAccount(generatePrivateKey()).address;
        const hash = await client.sendUserOperation({ account, calls: [{ to: recipient, value: 0n, data: callDataOf(round) }] });
        const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 30_000 });
        expect(receipt.success, `round ${round}`).toBe(true);
        expect(receipt.paymaster?.toLowerCase()).toBe(setup.address.toLowerCase());
        expect(await publicClient.getBalance({ address: account.address })).toBe(0n);

        // The paymaster's validation used what paymasterGasLimits allows, with room to spare.
        const trace = (await publicClient.request({
          method: 'debug_traceTransaction' as never,
          params: [receipt.receipt.transactionHash, { tracer: 'callTracer' }] as never,
        })) as CallFrame;
        const validation = findCall(trace, setup.address, version === '0.7' ? '0x52b7512c' : '0xf465c77e');
        expect(validation, 'validatePaymasterUserOp in the bundle').toBeDefined();
        const used = BigInt(validation!.gasUsed);
        const limit = version === '0.7' ? paymasterGasLimits.v07.verification : paymasterGasLimits.v06.verification;
        // v0.7's is a limit of its own (AA36 when over): twice what it used. v0.6's only prices the op.
        expect(version === '0.7' ? used * 2n : used).toBeLessThanOrEqual(limit);
      }
      expect(await publicClient.getCode({ address: account.address })).toMatch(/^0x.+/);
      const depositAfter = await paymasterDeposit(publicClient, setup);
      expect(depositAfter).toBeLessThan(depositBefore);
      // Exactly what the two ops cost: their UserOperationEvents' actualGasCost.
      const logs = await publicClient.getLogs({ address: setup.entryPoint, fromBlock: 0n });
      const events = parseEventLogs({ abi: version === '0.7' ? entryPointV07Abi : entryPointV06Abi, logs }).filter(
        (event) => event.eventName === 'UserOperationEvent' && event.args.sender === account.address,
      );
      expect(events).toHaveLength(2);
      const paid = events.reduce((sum, event) => sum + (event.args as { actualGasCost: bigint }).actualGasCost, 0n);
      expect(depositBefore - depositAfter).toBe(paid);
    },
    60_000,
  );

  it.each(['0.7', '0.6'] as const)(
    'v%s: a paymaster signature with one byte flipped is refused as AA34',
    async (version) => {
      const account = await newEmptyAccount(publicClient, version);
      const op = await preparedOp(sponsoringClient(version), account);
      // The last byte of s: the signature still recovers (to another address), so the paymaster
      // answers a signature failure instead of reverting.
      const flip = (data: Hex, fromEnd: number): Hex => {
        const at = data.length - fromEnd * 2;
        const byte = (Number.parseInt(data.slice(at, at + 2), 16) ^ 0x01).toString(16).padStart(2, '0');
        return `${data.slice(0, at)}${byte}${data.slice(at + 2)}` as Hex;
      };
      const tampered =
        version === '0.7'
          ? { ...op, paymasterData: flip(op.paymasterData as Hex, 2) }
          : { ...op, paymasterAndData: flip((op as unknown as UserOperation<'0.6'>).paymasterAndData as Hex, 2) };
      const answer = await send(tampered as UserOperation, account);
      expect(answer.error?.code).toBe(-32507);
      expect(answer.error?.message).toMatch(/^AA34 signature error: the paymaster signature does not verify/);

      // Untampered, the same op goes through.
      const sent = await send(op, account);
      expect(sent.error).toBeUndefined();
      expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/);
    },
    60_000,
  );

  it.each(['0.7', '0.6'] as const)(
    'v%s: a sponsorship whose validUntil has passed is refused as out of its time range',
    async (version) => {
      const account = await newEmptyAccount(publicClient, version);
      const client = sponsoringClient(version, () => ({ validUntil: now() - 60, validAfter: 0 }));
      const op = await preparedOp(client, account);
      const answer = await send(op, account);
      expect(answer.error?.code).toBe(-32503);
      expect(answer.error?.message).toMatch(/valid from 0 until \d+/);
    },
    60_000,
  );

  it.each(['0.7', '0.6'] as const)('v%s: the stub data estimates, and is refused on send', async (version) => {
    const setup = setupOf(version);
    const account = await newEmptyAccount(publicClient, version);
    const stub = forViem(stubPaymasterFields(setup));
    const client = sponsoringClient(version);
    const estimate = await client.estimateUserOperationGas({ account, calls: [{ to: account.address, value: 0n }], ...stub });
    expect(estimate.verificationGasLimit).toBeGreaterThan(0n);
    const op = await preparedOp(
      createBundlerClient({
        client: publicClient,
        chain: foundry,
        transport: http(url, { fetchOptions: { headers: { 'x-api-key': sponsored.key } }, retryCount: 0 }),
        userOperation: { estimateFeesPerGas: () => generousFees(publicClient) },
        paymaster: { getPaymasterStubData: async () => stub, getPaymasterData: async () => stub },
      }),
      account,
    );
    const answer = await send(op, account);
    expect(answer.error?.code).toBe(-32507);
    expect(answer.error?.message).toMatch(/^AA34/);
  });

  it('the deposit gauge shows each paymaster deposit', async () => {
    const watcher = sponsored.chain.service.service.paymasters.get('ethereum/devnet')?.deposits;
    expect(watcher).toBeDefined();
    await watcher!.refresh();
    const metrics = await (await fetch(`${sponsored.chain.service.url}/metrics`)).text();
    for (const version of ['0.6', '0.7'] as const) {
      const setup = setupOf(version);
      const deposit = await paymasterDeposit(publicClient, setup);
      expect(watcher!.latest(version)).toBe(deposit);
      const line = metrics
        .split('\n')
        .find((entry) =>
          entry.startsWith(`blockyard_paymaster_deposit_wei{network="ethereum/devnet",paymaster="${setup.address}"}`),
        );
      expect(line, `gauge of ${version}`).toBeDefined();
      expect(Number(line!.split(' ').at(-1))).toBe(Number(deposit));
    }
  });
});

interface CallFrame {
  to?: Address;
  input: Hex;
  gasUsed: Hex;
  calls?: CallFrame[];
}

function findCall(frame: CallFrame, to: Address, selector: Hex): CallFrame | undefined {
  if (frame.to?.toLowerCase() === to.toLowerCase() && frame.input.startsWith(selector)) return frame;
  for (const child of frame.calls ?? []) {
    const found = findCall(child, to, selector);
    if (found) return found;
  }
  return undefined;
}
