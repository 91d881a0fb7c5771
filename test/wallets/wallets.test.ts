import { getAddress, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc4337Addresses, simpleAccountFactoryAbi } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { type FirstOperation, firstUserOperationV06, firstUserOperationV07, handleOps } from '../support/user-operations.ts';

describe('/v1/wallets', () => {
  let chain: IndexedChain;
  let key: string;
  let otherKey: string;

  const call = async (apiKey: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${chain.service.url}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };
  const api = (method: string, path: string, body?: unknown) => call(key, method, path, body);

  /** Funds `sender`, then sends its first UserOperation (deploying it, 1 wei to `to`) in handleOps, as a bundler would. */
  const deployByFirstOperation = async (version: 'v06' | 'v07', first: Omit<FirstOperation, 'nonce' | 'value'>) => {
    await chain.wallet.sendTransaction({ to: first.sender, value: parseEther('1') });
    const operation = { ...first, nonce: 0n, value: 1n };
    return version === 'v07'
      ? handleOps(chain.service.anvil.url, { version, op: (await firstUserOperationV07(operation)).op })
      : handleOps(chain.service.anvil.url, { version, op: (await firstUserOperationV06(operation)).op });
  };

  beforeAll(async () => {
    chain = await startIndexedChain();
    await installErc4337Contracts(chain.service.anvil.url);
    key = (await chain.service.createKey()).key;
    otherKey = (await chain.service.createKey()).key;
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  it('creates counterfactual wallets at the factory’s address, per key, for both EntryPoints', async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    const created = await api('POST', '/v1/wallets/create', { owner: owner.toLowerCase(), chain: 'ethereum', salt: '0x2a' });
    expect(created.status).toBe(201);
    const expected = await chain.publicClient.readContract({
      address: erc4337Addresses.v07.factory,
      abi: simpleAccountFactoryAbi,
      functionName: 'getAddress',
      args: [owner, 42n],
    });
    expect(created.body).toMatchObject({
      address: expected,
      owner,
      chain: 'ethereum',
      network: 'devnet',
      status: 'counterfactual',
      factory: erc4337Addresses.v07.factory,
      entry_point: erc4337Addresses.v07.entryPoint,
      entry_point_version: '0.7',
      salt: '42',
      nonce: 0,
      deployed_at: null,
      deploy_tx: null,
    });
    const again = await api('POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: 42 });
    expect(again.body.address).toBe(expected);
    expect(again.body.created_at).toBe(created.body.created_at);

    const v06 = await api('POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: '42', entry_point_version: '0.6' });
    expect(v06.body).toMatchObject({
      entry_point: erc4337Addresses.v06.entryPoint,
      factory: erc4337Addresses.v06.factory,
      entry_point_version: '0.6',
    });
    expect(v06.body.address).not.toBe(expected);

    const listed = await api('GET', '/v1/wallets');
    expect(listed.body).toMatchObject({ page: 1, total: 2 });
    expect(Object.keys(listed.body.wallets[0]).sort()).toEqual(
      [
        'address',
        'chain',
        'created_at',
        'entry_point',
        'entry_point_version',
        'factory',
        'network',
        'owner',
        'salt',
        'status',
      ].sort(),
    );
    expect((await api('GET', '/v1/wallets?chain=polygon')).body.total).toBe(0);
    expect((await api('GET', `/v1/wallets/${expected}`)).body.address).toBe(expected);

    // Another key sees none of them.
    expect((await call(otherKey, 'GET', '/v1/wallets')).body.total).toBe(0);
    const hidden = await call(otherKey, 'GET', `/v1/wallets/${expected}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
  });

  it('refuses bad input naming the parameter', async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    for (const [body, param] of [
      [{ owner: '0x1234', chain: 'ethereum' }, 'owner'],
      [{ chain: 'ethereum' }, 'owner'],
      [{ owner, chain: 'ethereum', salt: '-1' }, 'salt'],
      [{ owner, chain: 'ethereum', salt: `0x1${'0'.repeat(64)}` }, 'salt'],
      [{ owner, chain: 'ethereum', entry_point_version: '0.9' }, 'entry_point_version'],
      [{ owner, chain: 'ethereum', colour: 'red' }, 'colour'],
      // No key signs for it: such a wallet could never send (it was created, 201).
      [{ owner: '0x0000000000000000000000000000000000000000', chain: 'ethereum' }, 'owner'],
    ] as const) {
      const answer = await api('POST', '/v1/wallets/create', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toContain(param);
    }
    // A chain named in a body is a field: unknown, 400 naming it (in a path it would be 404).
    const unknownChain = await api('POST', '/v1/wallets/create', { owner, chain: 'dogechain' });
    expect([unknownChain.status, unknownChain.body.error.message]).toEqual([400, expect.stringContaining("'chain'")]);
    expect((await api('GET', '/v1/wallets/0xnope')).status).toBe(400);
    // A network alone names no chain: refused, not ignored.
    const networkAlone = await api('GET', `/v1/wallets/${owner}?network=mainnet`);
    expect([networkAlone.status, networkAlone.body.error.message]).toEqual([400, expect.stringContaining("'chain'")]);
    const noScope = (await chain.service.createKey({ scopes: ['rpc:read'] })).key;
    const forbidden = await call(noScope, 'POST', '/v1/wallets/create', { owner, chain: 'ethereum' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toContain('wallets:manage');
  });

  it('turns deployed, with deploy_tx and deployed_at, once its first UserOperation deploys it', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const created = await api('POST', '/v1/wallets/create', { owner: owner.address, chain: 'ethereum' });
    const sender = created.body.address as `0x${string}`;
    const receipt = await deployByFirstOperation('v07', { owner, sender, salt: 0n, to: getAddress(`0x${'11'.repeat(20)}`) });
    const txHash = receipt.transactionHash;
    expect(receipt.status).toBe('success');
    await chain.synced();
    const deployed = await eventually(
      async () => {
        const got = await api('GET', `/v1/wallets/${sender}`);
        return got.body.deploy_tx ? got.body : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the wallet marked deployed' },
    );
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(deployed).toMatchObject({
      status: 'deployed',
      deploy_tx: txHash,
      nonce: 1,
      deployed_at: new Date(Number(block.timestamp) * 1000).toISOString(),
    });
  });

  it('a v0.6 wallet deployed before it was created here: deployed with its deploy_tx and deployed_at, never without them', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const { factory } = erc4337Addresses.v06;
    const sender = await chain.publicClient.readContract({
      address: factory,
      abi: simpleAccountFactoryAbi,
      functionName: 'getAddress',
      args: [owner.address, 7n],
    });
    const receipt = await deployByFirstOperation('v06', { owner, sender, salt: 7n, to: getAddress(`0x${'22'.repeat(20)}`) });
    const txHash = receipt.transactionHash;
    expect(receipt.status).toBe('success');
    // The deployment is indexed (and passed the watcher) before any key has the wallet.
    await chain.synced();

    const created = await api('POST', '/v1/wallets/create', {
      owner: owner.address,
      chain: 'ethereum',
      salt: 7,
      entry_point_version: '0.6',
    });
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const expected = {
      status: 'deployed',
      deploy_tx: txHash,
      deployed_at: new Date(Number(block.timestamp) * 1000).toISOString(),
    };
    expect(created.body).toMatchObject({ address: sender, ...expected });
    expect((await api('GET', `/v1/wallets/${sender}`)).body).toMatchObject(expected);
    const listed = (await api('GET', '/v1/wallets')).body.wallets.find(
      (wallet: { address: string }) => wallet.address === sender,
    );
    expect(listed.status).toBe('deployed');
  });
});
