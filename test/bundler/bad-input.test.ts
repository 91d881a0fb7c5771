import { type Address, encodeErrorResult, type Hex, parseAbi, parseEther, toHex } from 'viem';
import {
  entryPoint06Address,
  entryPoint07Address,
  entryPoint08Address,
  formatUserOperationRequest,
  getUserOperationHash,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import {
  bundlerUrlOf,
  callBundler,
  countUserOperations,
  executorAddress,
  fund,
  generousFees,
  installReverter,
  newSimpleAccount,
  postBundler,
  revertReason,
  type SimpleAccount,
} from './support.ts';

describe('the bundler refuses bad input with ERC-7769 errors and leaves the mempool alone', () => {
  let { service, key, url, publicClient, bundlerClient } = {} as BundlerService;
  let owner: PrivateKeyAccount;
  let account: SimpleAccount;
  let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  let gas: { callGasLimit: bigint; verificationGasLimit: bigint; preVerificationGas: bigint };
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const reverter: Address = '0xbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef';

  beforeAll(async () => {
    ({ service, key, url, publicClient, bundlerClient } = await startBundlerService({
      // A mainnet with a bundler: a test key must be refused there for being a test key, not for a missing bundler.
      moreChains: (anvilUrl) => [
        { chain: 'ethereum', network: 'mainnet', chain_id: 31337, upstreams: [{ url: anvilUrl }], bundler: { enabled: true } },
      ],
    }));
    await installReverter(service.anvil.url, reverter);

    owner = privateKeyToAccount(generatePrivateKey());
    account = await newSimpleAccount(publicClient, owner);
    await fund(service.anvil.url, [account.address], parseEther('1'));
    fees = await generousFees(publicClient);
    // The account's first op (nonce 0) deploys it and lands: later cases have a nonce to be too low against.
    const first = await bundlerClient.sendUserOperation({ account, calls: [{ to: recipient, value: 1n }], nonce: 0n, ...fees });
    const landed = await bundlerClient.waitForUserOperationReceipt({ hash: first, timeout: 30_000 });
    expect(landed.success).toBe(true);
    gas = await bundlerClient.estimateUserOperationGas({ account, calls: [{ to: recipient, value: 1n }], nonce: 1n, ...fees });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  /** An op of `from`, signed by `signer` (its owner unless told) over viem's getUserOperationHash. */
  async function signedOp(
    options: {
      from?: SimpleAccount;
      signer?: PrivateKeyAccount;
      nonce?: bigint;
      calls?: { to: Address; value?: bigint; data?: Hex }[];
      withFactory?: boolean;
      fees?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
      callGasLimit?: bigint;
    } = {},
  ): Promise<Record<string, unknown>> {
    const from = options.from ?? account;
    const op: UserOperation<'0.7'> = {
      sender: from.address,
      nonce: options.nonce ?? 1n,
      callData: await from.encodeCalls(options.calls ?? [{ to: recipient, value: 1n }]),
      ...(options.withFactory ? ((await from.getFactoryArgs()) as { factory: Address; factoryData: Hex }) : {}),
      callGasLimit: options.callGasLimit ?? gas.callGasLimit,
      verificationGasLimit: options.withFactory ? gas.verificationGasLimit + 300_000n : gas.verificationGasLimit,
      // Room for an op whose calldata has a few more non-zero bytes than the estimated one.
      preVerificationGas: gas.preVerificationGas + (options.withFactory ? 10_000n : 1_000n),
      ...(options.fees ?? fees),
      signature: '0x',
    };
    const hash = getUserOperationHash({
      userOperation: op,
      entryPointAddress: entryPoint07Address,
      entryPointVersion: '0.7',
      chainId: foundry.id,
    });
    const signature = await (options.signer ?? owner).signMessage({ message: { raw: hash } });
    return formatUserOperationRequest({ ...op, signature }) as Record<string, unknown>;
  }

  const snapshot = async () => ({
    rows: await countUserOperations(service.database.db),
    executorBalance: await publicClient.getBalance({ address: executorAddress }),
  });

  /** Sends the op (fetch, straight to the endpoint) and expects a JSON-RPC error with HTTP 200; nothing queued, nothing spent. */
  async function expectRefused(
    params: unknown[],
    code: number | 'server-defined',
    message: RegExp,
    options: { key?: string; method?: string } = {},
  ): Promise<{ code: number; message: string; data?: unknown }> {
    const before = await snapshot();
    const { status, body } = await postBundler(url, options.key ?? key, {
      jsonrpc: '2.0',
      id: 7,
      method: options.method ?? 'eth_sendUserOperation',
      params,
    });
    expect(status).toBe(200);
    expect(body.id).toBe(7);
    expect(body.result).toBeUndefined();
    if (code === 'server-defined') {
      // JSON-RPC 2.0's range for errors an implementation defines (ERC-7769 names none for a missing scope).
      expect(body.error?.code, JSON.stringify(body.error)).toBeGreaterThanOrEqual(-32099);
      expect(body.error?.code, JSON.stringify(body.error)).toBeLessThanOrEqual(-32000);
    } else {
      expect(body.error?.code, JSON.stringify(body.error)).toBe(code);
    }
    expect(body.error?.message).toMatch(message);
    // One poll of the bundle loop (250 ms) and more: a refused op must not have been bundled either.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await snapshot()).toEqual(before);
    return body.error!;
  }

  it('a malformed callGasLimit is -32602 naming userOperation.callGasLimit', async () => {
    const op = { ...(await signedOp()), callGasLimit: '0xzz' };
    await expectRefused([op, entryPoint07Address], -32602, /userOperation\.callGasLimit/);
  });

  it('an op without a sender is -32602 naming userOperation.sender', async () => {
    const { sender: _, ...op } = await signedOp();
    await expectRefused([op, entryPoint07Address], -32602, /userOperation\.sender is missing/);
  });

  it('an EntryPoint the bundler does not serve is -32602 naming the supported ones', async () => {
    const error = await expectRefused([await signedOp(), '0x00000000000000000000000000000000deadbeef'], -32602, /not supported/);
    expect(error.message.toLowerCase()).toContain(entryPoint07Address.toLowerCase());
    expect(error.message.toLowerCase()).toContain(entryPoint06Address.toLowerCase());
  });

  it('a missing parameter is -32602 naming that one: the op first, then the EntryPoint, wherever it stands', async () => {
    for (const method of ['eth_sendUserOperation', 'eth_estimateUserOperationGas', 'pimlico_sendUserOperationNow']) {
      await expectRefused([], -32602, /^the first parameter must be a UserOperation object$/, { method });
      await expectRefused([await signedOp()], -32602, /^the second parameter must be the EntryPoint address$/, { method });
    }
    await expectRefused([], -32602, /^the first parameter must be the EntryPoint address$/, {
      method: 'debug_bundler_dumpMempool',
    });
  });

  it('a signature by another key is -32507 with AA24 explained', async () => {
    const op = await signedOp({ signer: privateKeyToAccount(generatePrivateKey()) });
    await expectRefused([op, entryPoint07Address], -32507, /AA24.*signature does not match/);
  });

  it('a nonce already used is -32500 AA25 "nonce too low"', async () => {
    expect(await publicClient.getCode({ address: account.address })).toBeTruthy();
    await expectRefused(
      [await signedOp({ nonce: 0n }), entryPoint07Address],
      -32500,
      /^AA25 invalid account nonce.*nonce too low/,
    );
  });

  it('a nonce past a gap is -32500 AA25 "nonce too high"', async () => {
    await expectRefused(
      [await signedOp({ nonce: 4n }), entryPoint07Address],
      -32500,
      /^AA25 invalid account nonce.*nonce too high/,
    );
  });

  it("a maxFeePerGas below the next block's base fee is -32602 naming the base fee", async () => {
    const { baseFeePerGas } = await publicClient.getBlock({ blockTag: 'latest' });
    expect(baseFeePerGas).toBeGreaterThan(1n);
    const op = await signedOp({ fees: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n } });
    await expectRefused([op, entryPoint07Address], -32602, /maxFeePerGas 1 is below the next block's base fee \d+/);
  });

  // The EntryPoint needs callGasLimit (+ the postOp's) left before the call, and no bundle has more gas
  // than a block: such an op was accepted, then dropped at bundling with AA95 (its client never heard).
  it('an op whose callGasLimit is above the block gas limit is -32602 naming it, not accepted and dropped', async () => {
    const { gasLimit } = await publicClient.getBlock({ blockTag: 'latest' });
    await fund(service.anvil.url, [account.address], parseEther('1000'));
    const op = await signedOp({ callGasLimit: gasLimit + 1n });
    await expectRefused([op, entryPoint07Address], -32602, /above the block gas limit .*no bundle could carry/);
  });

  it('an unfunded counterfactual account with real fees is -32500 with AA21 explained', async () => {
    const unfunded = await newSimpleAccount(publicClient);
    expect(await publicClient.getBalance({ address: unfunded.address })).toBe(0n);
    const op = await signedOp({ from: unfunded, nonce: 0n, withFactory: true });
    expect(op.factory).toBeTruthy();
    await expectRefused([op, entryPoint07Address], -32500, /AA21.*prefund/);
  });

  it('a call that reverts is -32521 at estimation, with the revert bytes as hex (sent, it is bundled: reverting-ops.test.ts)', async () => {
    const op = await signedOp({ calls: [{ to: reverter, data: '0x' }] });
    const payload = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: [revertReason] });
    const estimated = await expectRefused([op, entryPoint07Address], -32521, /^UserOperation reverted during simulation/, {
      method: 'eth_estimateUserOperationGas',
    });
    expect(estimated.message).toBe(`UserOperation reverted during simulation with reason: ${payload} (${revertReason})`);
    expect(estimated.data).toBe(payload);
  });

  it('a key without bundler:send cannot send; without rpc:read or bundler:send it cannot read either', async () => {
    const dataOnly = (await service.createKey({ scopes: ['data:read'] })).key;
    await expectRefused([await signedOp(), entryPoint07Address], 'server-defined', /bundler:send/, { key: dataOnly });
    await expectRefused([], 'server-defined', /bundler:send' or 'rpc:read/, {
      key: dataOnly,
      method: 'eth_supportedEntryPoints',
    });
    const readOnly = (await service.createKey({ scopes: ['rpc:read'] })).key;
    await expectRefused([await signedOp(), entryPoint07Address], 'server-defined', /bundler:send/, { key: readOnly });
    const read = await callBundler(url, readOnly, 'eth_supportedEntryPoints');
    expect(read.result).toEqual([entryPoint07Address, entryPoint08Address, entryPoint06Address]);
  });

  it("a test key on the config's mainnet is 403; a live key is served there", async () => {
    const mainnet = bundlerUrlOf(service.url, 'mainnet');
    const before = await snapshot();
    const refused = await postBundler(mainnet, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendUserOperation',
      params: [await signedOp(), entryPoint07Address],
    });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toMatch(/test keys.*mainnet/);
    expect(await snapshot()).toEqual(before);
    const live = (await service.createKey({ environment: 'live' })).key;
    const served = await callBundler(mainnet, live, 'eth_supportedEntryPoints');
    expect(served.result).toEqual([entryPoint07Address, entryPoint08Address, entryPoint06Address]);
  });

  it('an unknown method is -32601 naming it; an unknown eth_ method is the chain’s, as on /v1/rpc', async () => {
    await expectRefused([], -32601, /'foo_bar' is not available on ethereum\/devnet/, { method: 'foo_bar' });
    await expectRefused([], -32601, /bundler has no method 'pimlico_fooBar'/, { method: 'pimlico_fooBar' });
    // The eth_ namespace is open on the proxy: the node itself answers that it has no such method.
    await expectRefused([], -32601, /not found/i, { method: 'eth_fooBar' });
  });

  it('a batch of two calls is answered in order, each with its id', async () => {
    const { status, body } = await postBundler(url, key, [
      { jsonrpc: '2.0', id: 'b', method: 'eth_supportedEntryPoints', params: [] },
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
    ]);
    expect(status).toBe(200);
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 'b', result: [entryPoint07Address, entryPoint08Address, entryPoint06Address] },
      { jsonrpc: '2.0', id: 'a', result: toHex(foundry.id) },
    ]);
  });

  it('a body sent without a JSON Content-Type (curl -d sends a form type) is read as on /v1/rpc; one that is not JSON is 400', async () => {
    const post = async (body: string, headers: Record<string, string>) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': key, ...headers },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      return { status: response.status, body: (await response.json()) as { result?: unknown; error?: { message: string } } };
    };
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] });
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain']) {
      const answer = await post(call, { 'content-type': contentType });
      expect({ contentType, ...answer }).toEqual({
        contentType,
        status: 200,
        body: { jsonrpc: '2.0', id: 1, result: [entryPoint07Address, entryPoint08Address, entryPoint06Address] },
      });
    }
    const broken = await post('{"jsonrpc":', { 'content-type': 'text/plain' });
    expect(broken.status).toBe(400);
    expect(broken.body.error?.message).toMatch(/JSON/);
  });

  it('after all of that, a good op from the same account is still accepted and lands', async () => {
    const hash = (await callBundler(url, key, 'eth_sendUserOperation', [await signedOp(), entryPoint07Address])).result as Hex;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    expect(receipt.success).toBe(true);
    expect(await publicClient.getBalance({ address: recipient })).toBe(2n);
  });
});
