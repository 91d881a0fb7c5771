import { type Address, decodeEventLog, getAddress, type Hash, parseUnits, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { deployerAccount, deployTestContracts, type TestContracts } from '../support/contracts.ts';

const alice = getAddress('0x70997970c51812dc3a010c7d01b50e5d17dc79c8');
const bob = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const dev = deployerAccount.address;

describe('demo contracts on anvil', () => {
  let anvil: Devnet;
  let c: TestContracts;
  const mined = async (hash: Hash) => {
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    return receipt;
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
    c = await deployTestContracts(anvil.url);
  });
  afterAll(() => anvil?.stop());

  describe('DemoToken (ERC-20)', () => {
    const token = () => ({ address: c.token, abi: c.artifacts.DemoToken.abi });

    it('mints and transfers with Transfer events', async () => {
      expect(await c.publicClient.readContract({ ...token(), functionName: 'decimals' })).toBe(18);
      expect(await c.publicClient.readContract({ ...token(), functionName: 'symbol' })).toBe('TST');
      await mined(await c.wallet.writeContract({ ...token(), functionName: 'mint', args: [dev, parseUnits('100', 18)] }));
      const receipt = await mined(
        await c.wallet.writeContract({ ...token(), functionName: 'transfer', args: [alice, parseUnits('30', 18)] }),
      );
      expect(receipt.logs).toHaveLength(1);
      const event = decodeEventLog({ abi: c.artifacts.DemoToken.abi, ...receipt.logs[0]! });
      expect(event).toMatchObject({ eventName: 'Transfer', args: { from: dev, to: alice, value: parseUnits('30', 18) } });
      expect(await c.publicClient.readContract({ ...token(), functionName: 'balanceOf', args: [dev] })).toBe(
        parseUnits('70', 18),
      );
      expect(await c.publicClient.readContract({ ...token(), functionName: 'balanceOf', args: [alice] })).toBe(
        parseUnits('30', 18),
      );
    });

    it('moves an allowance with approve and transferFrom, and refuses beyond it', async () => {
      await mined(await c.wallet.writeContract({ ...token(), functionName: 'approve', args: [dev, 5n] }));
      // dev spends its own approval to itself: from dev to bob through transferFrom.
      await mined(await c.wallet.writeContract({ ...token(), functionName: 'transferFrom', args: [dev, bob, 5n] }));
      expect(await c.publicClient.readContract({ ...token(), functionName: 'allowance', args: [dev, dev] })).toBe(0n);
      expect(await c.publicClient.readContract({ ...token(), functionName: 'balanceOf', args: [bob] })).toBe(5n);
      await expect(
        c.publicClient.simulateContract({ ...token(), account: dev, functionName: 'transferFrom', args: [dev, bob, 1n] }),
      ).rejects.toThrow(/InsufficientAllowance/);
    });

    it('rebase changes a balance and the supply without any log; burn emits a Transfer to zero', async () => {
      const supplyBefore = (await c.publicClient.readContract({ ...token(), functionName: 'totalSupply' })) as bigint;
      const receipt = await mined(
        await c.wallet.writeContract({ ...token(), functionName: 'rebase', args: [alice, parseUnits('31', 18)] }),
      );
      expect(receipt.logs).toEqual([]);
      expect(await c.publicClient.readContract({ ...token(), functionName: 'balanceOf', args: [alice] })).toBe(
        parseUnits('31', 18),
      );
      expect(await c.publicClient.readContract({ ...token(), functionName: 'totalSupply' })).toBe(
        supplyBefore + parseUnits('1', 18),
      );

      const burn = await mined(
        await c.wallet.writeContract({ ...token(), functionName: 'burn', args: [alice, parseUnits('1', 18)] }),
      );
      expect(decodeEventLog({ abi: c.artifacts.DemoToken.abi, ...burn.logs[0]! }).args).toMatchObject({
        from: alice,
        to: zeroAddress,
      });
      expect(await c.publicClient.readContract({ ...token(), functionName: 'totalSupply' })).toBe(supplyBefore);
    });
  });

  describe('DemoNft (ERC-721)', () => {
    const nft = () => ({ address: c.nft, abi: c.artifacts.DemoNft.abi });

    it('mints, transfers and answers ownerOf, balanceOf and totalSupply', async () => {
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'mint', args: [dev, 1n] }));
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'mint', args: [dev, 2n] }));
      const receipt = await mined(
        await c.wallet.writeContract({ ...nft(), functionName: 'transferFrom', args: [dev, alice, 2n] }),
      );
      expect(decodeEventLog({ abi: c.artifacts.DemoNft.abi, ...receipt.logs[0]! })).toMatchObject({
        eventName: 'Transfer',
        args: { from: dev, to: alice, tokenId: 2n },
      });
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'ownerOf', args: [2n] })).toBe(alice);
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'balanceOf', args: [dev] })).toBe(1n);
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'totalSupply' })).toBe(2n);
      await expect(c.publicClient.readContract({ ...nft(), functionName: 'ownerOf', args: [99n] })).rejects.toThrow(
        /NonexistentToken/,
      );
      await expect(
        c.publicClient.simulateContract({ ...nft(), account: dev, functionName: 'transferFrom', args: [alice, dev, 2n] }),
      ).rejects.toThrow(/NotAuthorized/);
    });

    it('answers tokenURI from the base URI, or the token URI once set', async () => {
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'tokenURI', args: [1n] })).toBe('');
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'setBaseURI', args: ['ipfs://base/'] }));
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'tokenURI', args: [1n] })).toBe('ipfs://base/1');
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'mint', args: [dev, 1234567890n] }));
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'tokenURI', args: [1234567890n] })).toBe(
        'ipfs://base/1234567890',
      );
      await mined(
        await c.wallet.writeContract({ ...nft(), functionName: 'setTokenURI', args: [1n, 'https://meta.test/one.json'] }),
      );
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'tokenURI', args: [1n] })).toBe(
        'https://meta.test/one.json',
      );
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'setContractURI', args: ['ipfs://collection'] }));
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'contractURI' })).toBe('ipfs://collection');
    });

    it('refuses a safe transfer to a contract that does not accept tokens, and burns', async () => {
      await expect(
        c.publicClient.simulateContract({ ...nft(), account: dev, functionName: 'safeTransferFrom', args: [dev, c.token, 1n] }),
      ).rejects.toThrow(/UnsafeRecipient/);
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'safeTransferFrom', args: [dev, bob, 1n, '0x'] }));
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'ownerOf', args: [1n] })).toBe(bob);
      await mined(await c.wallet.writeContract({ ...nft(), functionName: 'burn', args: [1n] }));
      await expect(c.publicClient.readContract({ ...nft(), functionName: 'ownerOf', args: [1n] })).rejects.toThrow(
        /NonexistentToken/,
      );
    });

    it.each([
      ['0x01ffc9a7', true],
      ['0x80ac58cd', true],
      ['0x5b5e139f', true],
      ['0xd9b67a26', false],
    ] as const)('supportsInterface(%s) is %s', async (id, expected) => {
      expect(await c.publicClient.readContract({ ...nft(), functionName: 'supportsInterface', args: [id] })).toBe(expected);
    });
  });

  describe('DemoItems (ERC-1155)', () => {
    const items = () => ({ address: c.items, abi: c.artifacts.DemoItems.abi });
    const balances = (holders: Address[], ids: bigint[]) =>
      c.publicClient.readContract({ ...items(), functionName: 'balanceOfBatch', args: [holders, ids] });

    it('mints singly and in batches with TransferSingle and TransferBatch events', async () => {
      const single = await mined(await c.wallet.writeContract({ ...items(), functionName: 'mint', args: [dev, 1n, 10n] }));
      expect(decodeEventLog({ abi: c.artifacts.DemoItems.abi, ...single.logs[0]! })).toMatchObject({
        eventName: 'TransferSingle',
        args: { operator: dev, from: zeroAddress, to: dev, id: 1n, value: 10n },
      });
      const batch = await mined(
        await c.wallet.writeContract({ ...items(), functionName: 'mintBatch', args: [alice, [1n, 2n, 3n], [1n, 2n, 3n]] }),
      );
      expect(decodeEventLog({ abi: c.artifacts.DemoItems.abi, ...batch.logs[0]! })).toMatchObject({
        eventName: 'TransferBatch',
        args: { to: alice, ids: [1n, 2n, 3n], values: [1n, 2n, 3n] },
      });
      expect(await balances([dev, alice, alice, bob], [1n, 1n, 3n, 1n])).toEqual([10n, 1n, 3n, 0n]);
      expect(await c.publicClient.readContract({ ...items(), functionName: 'totalSupply', args: [1n] })).toBe(11n);
    });

    it('transfers singly and in batches, and refuses a contract recipient that does not accept', async () => {
      await mined(await c.wallet.writeContract({ ...items(), functionName: 'safeTransferFrom', args: [dev, bob, 1n, 4n, '0x'] }));
      await mined(await c.wallet.writeContract({ ...items(), functionName: 'mint', args: [dev, 2n, 5n] }));
      await mined(
        await c.wallet.writeContract({
          ...items(),
          functionName: 'safeBatchTransferFrom',
          args: [dev, bob, [1n, 2n], [1n, 5n], '0x'],
        }),
      );
      expect(await balances([dev, bob, bob], [1n, 1n, 2n])).toEqual([5n, 5n, 5n]);
      await expect(
        c.publicClient.simulateContract({
          ...items(),
          account: dev,
          functionName: 'safeTransferFrom',
          args: [dev, c.nft, 1n, 1n, '0x'],
        }),
      ).rejects.toThrow(/UnsafeRecipient/);
      await expect(
        c.publicClient.simulateContract({
          ...items(),
          account: dev,
          functionName: 'safeTransferFrom',
          args: [bob, dev, 1n, 1n, '0x'],
        }),
      ).rejects.toThrow(/NotAuthorized/);
    });

    it('answers uri(id) from the {id} template, a per-id URI, and a new template', async () => {
      expect(await c.publicClient.readContract({ ...items(), functionName: 'uri', args: [7n] })).toBe(
        'ipfs://test-items/{id}.json',
      );
      const receipt = await mined(
        await c.wallet.writeContract({ ...items(), functionName: 'setTokenURI', args: [7n, 'https://meta.test/7.json'] }),
      );
      expect(decodeEventLog({ abi: c.artifacts.DemoItems.abi, ...receipt.logs[0]! })).toMatchObject({
        eventName: 'URI',
        args: { value: 'https://meta.test/7.json', id: 7n },
      });
      await mined(await c.wallet.writeContract({ ...items(), functionName: 'setURI', args: ['https://items.test/{id}'] }));
      expect(await c.publicClient.readContract({ ...items(), functionName: 'uri', args: [7n] })).toBe('https://meta.test/7.json');
      expect(await c.publicClient.readContract({ ...items(), functionName: 'uri', args: [8n] })).toBe('https://items.test/{id}');
    });

    it.each([
      ['0x01ffc9a7', true],
      ['0xd9b67a26', true],
      ['0x0e89341c', true],
      ['0x80ac58cd', false],
    ] as const)('supportsInterface(%s) is %s', async (id, expected) => {
      expect(await c.publicClient.readContract({ ...items(), functionName: 'supportsInterface', args: [id] })).toBe(expected);
    });
  });

  describe('DemoPriceFeed', () => {
    it('answers latestRoundData, and a new round after setAnswer', async () => {
      const feed = { address: c.priceFeed, abi: c.artifacts.DemoPriceFeed.abi } as const;
      expect(await c.publicClient.readContract({ ...feed, functionName: 'decimals' })).toBe(8);
      expect(await c.publicClient.readContract({ ...feed, functionName: 'description' })).toBe('ETH / USD');
      type RoundData = readonly [bigint, bigint, bigint, bigint, bigint];
      const [roundId, answer, startedAt, updatedAt, answeredInRound] = (await c.publicClient.readContract({
        ...feed,
        functionName: 'latestRoundData',
      })) as RoundData;
      expect([roundId, answer, answeredInRound]).toEqual([1n, 3000n * 10n ** 8n, 1n]);
      expect(updatedAt).toBeGreaterThan(0n);
      expect(startedAt).toBe(updatedAt);

      await mined(await c.wallet.writeContract({ ...feed, functionName: 'setAnswer', args: [-5n] }));
      const latest = (await c.publicClient.readContract({ ...feed, functionName: 'latestRoundData' })) as RoundData;
      expect([latest[0], latest[1], latest[4]]).toEqual([2n, -5n, 2n]);
    });
  });
});
