import { type Address, encodeFunctionData, erc20Abi, type Hex, numberToHex, parseEther } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import type { TestRpcServer } from '../support/rpc-server.ts';
import type { TestService } from '../support/service.ts';
import { forwardAllBut, useServiceWithSepolia } from '../support/service-setups.ts';
import { forwarderInitCode } from '../transfers/chain-check.ts';
import { type AssetChangesAnswer, applyChanges, multicall, multicallAbi, type SimTx, snapshot } from './simulation-support.ts';

const { dev, alice, bob, carol } = demoAccounts;
const unit = 10n ** 18n;

/**
 * The differential: each transaction is simulated (alchemy_simulateAssetChanges) on two networks of the
 * same anvil, one whose node has eth_simulateV1 and one whose node refuses it (debug_traceCall), then
 * sent for real; every watched balance must move exactly as the simulation said (the sender's ETH
 * besides the fee), approvals must hold on chain, reverts must be reported and move nothing.
 */
describe('alchemy_simulateAssetChanges against the same transactions run for real', () => {
  let t: TestService;
  let upstream: TestRpcServer;
  let anvilUrl = '';
  let key: string;
  let c: TestContracts;
  let forwarder: Address;

  const anvil = (method: string, params: unknown[]) => jsonRpc(anvilUrl, method, params);

  useServiceWithSepolia(forwardAllBut('eth_simulateV1'), (started) => ({ t, upstream, anvilUrl, key } = started));
  beforeAll(async () => {
    c = await deployTestContracts(anvilUrl);
    const { wallet, publicClient, token, nft, items, artifacts } = c;
    const send = async (hash: Hex) => publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    const deployed = await send(await wallet.deployContract({ abi: [], bytecode: forwarderInitCode(bob.toLowerCase()) }));
    forwarder = deployed.contractAddress!.toLowerCase() as Address;
    await send(
      await wallet.writeContract({
        address: token,
        abi: artifacts.DemoToken.abi,
        functionName: 'mint',
        args: [dev, 1000n * unit],
      }),
    );
    await send(
      await wallet.writeContract({
        address: token,
        abi: artifacts.DemoToken.abi,
        functionName: 'mint',
        args: [multicall, 500n * unit],
      }),
    );
    for (const id of [1n, 2n, 3n, 4n, 5n, 6n]) {
      await send(await wallet.writeContract({ address: nft, abi: artifacts.DemoNft.abi, functionName: 'mint', args: [dev, id] }));
    }
    const mintItems = (to: Address, ids: bigint[], amounts: bigint[]) =>
      wallet.writeContract({ address: items, abi: artifacts.DemoItems.abi, functionName: 'mintBatch', args: [to, ids, amounts] });
    await send(await mintItems(dev, [1n, 2n], [100n, 10n]));
  }, 120_000);

  const simulate = async (network: string, tx: SimTx): Promise<AssetChangesAnswer> => {
    const params = [{ from: tx.from, to: tx.to, value: numberToHex(tx.value ?? 0n), data: tx.data ?? '0x' }];
    const response = await t.rpc(
      key,
      { jsonrpc: '2.0', id: 1, method: 'alchemy_simulateAssetChanges', params },
      `/v1/rpc/ethereum/${network}`,
    );
    const body = (await response.json()) as { result?: AssetChangesAnswer; error?: unknown };
    if (body.result === undefined) throw new Error(`${tx.label} on ${network}: ${JSON.stringify(body.error)}`);
    return body.result;
  };

  function transactions(): SimTx[] {
    const { token, nft, items, artifacts } = c;
    const erc20 = (functionName: 'transfer' | 'approve' | 'transferFrom', args: readonly unknown[]) =>
      encodeFunctionData({ abi: artifacts.DemoToken.abi, functionName, args } as never);
    const erc721 = (functionName: string, args: readonly unknown[]) =>
      encodeFunctionData({ abi: artifacts.DemoNft.abi, functionName, args } as never);
    const erc1155 = (functionName: string, args: readonly unknown[]) =>
      encodeFunctionData({ abi: artifacts.DemoItems.abi, functionName, args } as never);
    const swap = encodeFunctionData({
      abi: multicallAbi,
      functionName: 'aggregate3Value',
      args: [
        [
          { target: token, allowFailure: false, value: 0n, callData: erc20('transfer', [alice, 50n * unit]) },
          { target: items, allowFailure: false, value: 0n, callData: erc1155('safeTransferFrom', [alice, bob, 1n, 2n, '0x']) },
          { target: carol, allowFailure: false, value: parseEther('0.1'), callData: '0x' },
          { target: token, allowFailure: false, value: 0n, callData: erc20('transferFrom', [alice, bob, 10n * unit]) },
        ],
      ],
    });
    const partlyFailing = encodeFunctionData({
      abi: multicallAbi,
      functionName: 'aggregate3',
      args: [
        [
          { target: token, allowFailure: true, callData: erc20('transfer', [carol, 10n ** 30n]) },
          { target: token, allowFailure: true, callData: erc20('transfer', [carol, 1n * unit]) },
        ],
      ],
    });
    // anvil's eth_simulateV1 lists the ETH of the refused call as moved; the chain keeps it in the multicall.
    const ethPartlyRefused = encodeFunctionData({
      abi: multicallAbi,
      functionName: 'aggregate3Value',
      args: [
        [
          { target: carol, allowFailure: true, value: 7n, callData: '0x' },
          { target: token, allowFailure: true, value: 5n, callData: '0x' },
        ],
      ],
    });
    return [
      { label: 'ETH dev -> alice', from: dev, to: alice, value: parseEther('1') },
      { label: 'ETH alice -> bob', from: alice, to: bob, value: parseEther('0.25') },
      { label: 'ETH through a forwarder (internal transfer)', from: dev, to: forwarder, value: 12_345n },
      { label: 'ERC-20 dev -> alice', from: dev, to: token, data: erc20('transfer', [alice, 100n * unit]) },
      { label: 'ERC-20 alice -> bob', from: alice, to: token, data: erc20('transfer', [bob, 40n * unit]) },
      { label: 'ERC-20 approve alice -> multicall', from: alice, to: token, data: erc20('approve', [multicall, 30n * unit]) },
      { label: 'ERC-20 approve dev -> carol', from: dev, to: token, data: erc20('approve', [carol, 5n * unit]) },
      { label: 'ERC-20 transferFrom by carol', from: carol, to: token, data: erc20('transferFrom', [dev, bob, 5n * unit]) },
      {
        label: 'ERC-20 mint to carol',
        from: dev,
        to: token,
        data: encodeFunctionData({ abi: artifacts.DemoToken.abi, functionName: 'mint', args: [carol, 7n] }),
      },
      { label: 'ERC-721 transferFrom dev -> alice', from: dev, to: nft, data: erc721('transferFrom', [dev, alice, 1n]) },
      { label: 'ERC-721 safeTransferFrom dev -> bob', from: dev, to: nft, data: erc721('safeTransferFrom', [dev, bob, 2n]) },
      { label: 'ERC-721 approve carol for 3', from: dev, to: nft, data: erc721('approve', [carol, 3n]) },
      { label: 'ERC-721 transferFrom by the approved', from: carol, to: nft, data: erc721('transferFrom', [dev, carol, 3n]) },
      { label: 'ERC-721 approval for all to bob', from: dev, to: nft, data: erc721('setApprovalForAll', [bob, true]) },
      { label: 'ERC-721 transferFrom by the operator', from: bob, to: nft, data: erc721('transferFrom', [dev, bob, 4n]) },
      { label: 'ERC-721 approval for all revoked', from: dev, to: nft, data: erc721('setApprovalForAll', [bob, false]) },
      {
        label: 'ERC-1155 single dev -> alice',
        from: dev,
        to: items,
        data: erc1155('safeTransferFrom', [dev, alice, 1n, 10n, '0x']),
      },
      {
        label: 'ERC-1155 batch dev -> bob',
        from: dev,
        to: items,
        data: erc1155('safeBatchTransferFrom', [dev, bob, [1n, 2n], [5n, 3n], '0x']),
      },
      { label: 'ERC-1155 approval for all to carol', from: dev, to: items, data: erc1155('setApprovalForAll', [carol, true]) },
      {
        label: 'ERC-1155 transfer by the operator',
        from: carol,
        to: items,
        data: erc1155('safeTransferFrom', [dev, carol, 2n, 2n, '0x']),
      },
      {
        label: 'ERC-1155 approval for all to multicall',
        from: alice,
        to: items,
        data: erc1155('setApprovalForAll', [multicall, true]),
      },
      {
        label: 'swap-like: ETH, tokens and items both ways in one transaction',
        from: alice,
        to: multicall,
        value: parseEther('0.1'),
        data: swap,
      },
      { label: 'a failed inner call moves nothing, its sibling does', from: dev, to: multicall, data: partlyFailing },
      {
        label: 'ETH to a contract that refuses it, inside a multicall that lets the call fail: it stays',
        from: dev,
        to: multicall,
        value: 12n,
        data: ethPartlyRefused,
      },
      // Deploys runtime code (LOG0, then revert) and keeps the 5 wei sent with it.
      { label: 'a contract deployed with ETH', from: dev, value: 5n, data: '0x6960006000a060006000fd600052600a6016f3' },
      {
        label: 'revert: ERC-20 over the balance',
        from: carol,
        to: token,
        data: erc20('transfer', [alice, 10n ** 30n]),
        reverts: true,
      },
      { label: 'revert: ERC-721 not owned', from: carol, to: nft, data: erc721('transferFrom', [dev, carol, 5n]), reverts: true },
      { label: 'ETH dev -> carol after all', from: dev, to: carol, value: 777n },
    ];
  }

  it('every simulated change is what the chain then does, by eth_simulateV1 and by debug_traceCall', {
    timeout: 180_000,
  }, async () => {
    const holders: Address[] = [dev, alice, bob, carol, multicall, forwarder];
    const txs = transactions();
    expect(txs.length).toBeGreaterThanOrEqual(20);
    const kinds = new Set<string>();
    for (const tx of txs) {
      const before = await snapshot(c.publicClient, c, holders);
      const viaSimulateV1 = await simulate('devnet', tx);
      const viaTrace = await simulate('sepolia', tx);
      // The fallback (debug_traceCall with the call tracer) answers exactly as eth_simulateV1 does.
      expect(viaTrace, tx.label).toEqual(viaSimulateV1);
      await anvil('anvil_impersonateAccount', [tx.from]);
      const hash = (await anvil('eth_sendTransaction', [
        {
          from: tx.from,
          to: tx.to,
          value: numberToHex(tx.value ?? 0n),
          data: tx.data ?? '0x',
          ...(tx.reverts ? { gas: '0x30d40' } : {}),
        },
      ])) as Hex;
      const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
      const after = await snapshot(c.publicClient, c, holders);
      const expected = applyChanges(before, viaSimulateV1.changes);
      const sender = `NATIVE|${tx.from.toLowerCase()}`;
      expected.set(sender, expected.get(sender)! - receipt.gasUsed * receipt.effectiveGasPrice);
      expect(Object.fromEntries(after), tx.label).toEqual(Object.fromEntries(expected));
      if (tx.reverts) {
        expect(receipt.status, tx.label).toBe('reverted');
        expect(viaSimulateV1.changes).toEqual([]);
        expect(viaSimulateV1.error?.message, tx.label).toMatch(/revert/);
        continue;
      }
      expect(receipt.status, tx.label).toBe('success');
      expect(viaSimulateV1.error, tx.label).toBeNull();
      expect(BigInt(viaSimulateV1.gasUsed!), tx.label).toBe(receipt.gasUsed);
      expect(viaSimulateV1.changes.length, tx.label).toBeGreaterThan(0);
      if (tx.label.startsWith('swap-like')) {
        // ETH in and on to carol, tokens out to alice and from her to bob, an item from her to bob.
        expect(viaSimulateV1.changes.map((change) => change.assetType)).toEqual([
          'NATIVE',
          'ERC20',
          'ERC1155',
          'NATIVE',
          'ERC20',
        ]);
      }
      for (const change of viaSimulateV1.changes) {
        kinds.add(`${change.assetType} ${change.changeType}`);
        await expectChangeFacts(change, tx.label);
      }
    }
    // The second network asked its node for eth_simulateV1 once, then traced every transaction.
    expect(upstream.count('eth_simulateV1')).toBe(1);
    expect(upstream.count('debug_traceCall')).toBeGreaterThanOrEqual(txs.length);
    expect([...kinds].sort()).toEqual([
      'ERC1155 APPROVE',
      'ERC1155 TRANSFER',
      'ERC20 APPROVE',
      'ERC20 TRANSFER',
      'ERC721 APPROVE',
      'ERC721 TRANSFER',
      'NATIVE TRANSFER',
    ]);
  });

  it('a bundle of three, each on the state the earlier left, then sent for real: both ways agree with the chain', async () => {
    const fresh = '0x00000000000000000000000000000000000bee75' as Address;
    const transfer = (to: Address, amount: bigint) =>
      encodeFunctionData({ abi: c.artifacts.DemoToken.abi, functionName: 'transfer', args: [to, amount] });
    const bundle: SimTx[] = [
      { label: 'ETH to a fresh address', from: dev, to: fresh, value: parseEther('1') },
      { label: 'tokens to it', from: dev, to: c.token, data: transfer(fresh, 5n * unit) },
      { label: 'it spends tokens and ETH it was just given', from: fresh, to: c.token, data: transfer(bob, 3n * unit) },
    ];
    const holders: Address[] = [dev, bob, fresh];
    const before = await snapshot(c.publicClient, c, holders);
    const params = [
      bundle.map((tx) => ({ from: tx.from, to: tx.to, value: numberToHex(tx.value ?? 0n), data: tx.data ?? '0x' })),
    ];
    const simulated: AssetChangesAnswer[][] = [];
    for (const network of ['devnet', 'sepolia']) {
      const body = { jsonrpc: '2.0', id: 1, method: 'alchemy_simulateAssetChangesBundle', params };
      const answer = (await (await t.rpc(key, body, `/v1/rpc/ethereum/${network}`)).json()) as { result: AssetChangesAnswer[] };
      simulated.push(answer.result);
    }
    expect(simulated[1]).toEqual(simulated[0]);
    expect(simulated[0]!.map((answer) => answer.error)).toEqual([null, null, null]);
    let expected = before;
    for (const tx of bundle) {
      await anvil('anvil_impersonateAccount', [tx.from]);
      const hash = (await anvil('eth_sendTransaction', [
        { from: tx.from, to: tx.to, value: numberToHex(tx.value ?? 0n), data: tx.data ?? '0x' },
      ])) as Hex;
      const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
      expect(receipt.status, tx.label).toBe('success');
      const sender = `NATIVE|${tx.from.toLowerCase()}`;
      expected = applyChanges(expected, simulated[0]![bundle.indexOf(tx)]!.changes);
      expected.set(sender, expected.get(sender)! - receipt.gasUsed * receipt.effectiveGasPrice);
      expect(BigInt(simulated[0]![bundle.indexOf(tx)]!.gasUsed!), tx.label).toBe(receipt.gasUsed);
    }
    const after = await snapshot(c.publicClient, c, holders);
    expect(Object.fromEntries(after)).toEqual(Object.fromEntries(expected));
  });

  /** The metadata of a change, and an approval as the chain now holds it. */
  async function expectChangeFacts(change: AssetChangesAnswer['changes'][number], label: string): Promise<void> {
    const { token, nft, items, artifacts, publicClient } = c;
    const expectedFacts: Record<string, Partial<typeof change>> = {
      NATIVE: { symbol: 'ETH', decimals: 18, contractAddress: null },
      ERC20: { symbol: 'TST', decimals: 18, contractAddress: token.toLowerCase() },
      ERC721: { symbol: 'TNFT', decimals: 0, contractAddress: nft.toLowerCase() },
      ERC1155: { symbol: 'TITEM', decimals: 0, contractAddress: items.toLowerCase() },
    };
    expect(change, label).toMatchObject(expectedFacts[change.assetType]!);
    if (change.rawAmount !== null && change.decimals !== null) {
      expect(change.amount, label).toBe(change.decimals === 18 ? formatEther(BigInt(change.rawAmount)) : change.rawAmount);
    }
    if (change.changeType !== 'APPROVE') return;
    const from = change.from as Address;
    const to = change.to as Address;
    if (change.assetType === 'ERC20') {
      const allowance = await publicClient.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [from, to],
      });
      expect(allowance.toString(), label).toBe(change.rawAmount);
    } else if (change.tokenId !== null) {
      const approved = await publicClient.readContract({
        address: nft,
        abi: artifacts.DemoNft.abi,
        functionName: 'getApproved',
        args: [BigInt(change.tokenId)],
      });
      expect((approved as string).toLowerCase(), label).toBe(to.toLowerCase());
    } else {
      const abi = change.assetType === 'ERC721' ? artifacts.DemoNft.abi : artifacts.DemoItems.abi;
      const address = change.assetType === 'ERC721' ? nft : items;
      const all = await publicClient.readContract({ address, abi, functionName: 'isApprovedForAll', args: [from, to] });
      expect(all, label).toBe(change.rawAmount !== '0');
    }
  }
});

function formatEther(wei: bigint): string {
  const whole = wei / 10n ** 18n;
  const fraction = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
