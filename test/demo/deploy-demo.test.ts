import { pino } from 'pino';
import { createPublicClient, getAddress, http, type PublicClient, parseAbi, parseAbiItem, parseUnits } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { multicall3Address } from '../../src/chains/public-client.ts';
import { installMulticall3 } from '../../src/contracts/install-multicall3.ts';
import { demoAccounts, demoSpamToken, spamTarget } from '../../src/demo/demo-plan.ts';
import { type DemoDeployment, demoContractAddresses, deployDemo } from '../../src/demo/deploy-demo.ts';
import { startTestAnvil } from '../support/anvil.ts';

const dev = getAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
const alice = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const bob = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const carol = getAddress('0x90f79bf6eb2c4f870365e785982e1f101e93b906');
const log = pino({ level: 'silent' });

// Hand-written ABIs: the test reads the chain as any client would, not through our artifacts.
const erc20 = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
]);
const erc721 = parseAbi([
  'function name() view returns (string)',
  'function ownerOf(uint256) view returns (address)',
  'function balanceOf(address) view returns (uint256)',
  'function tokenURI(uint256) view returns (string)',
  'function contractURI() view returns (string)',
]);
const erc1155 = parseAbi([
  'function balanceOfBatch(address[], uint256[]) view returns (uint256[])',
  'function uri(uint256) view returns (string)',
  'function contractURI() view returns (string)',
]);

function decodeJsonDataUri(uri: string): Record<string, unknown> {
  const base64 = 'data:application/json;base64,';
  const plain = 'data:application/json,';
  if (uri.startsWith(base64)) return JSON.parse(Buffer.from(uri.slice(base64.length), 'base64').toString('utf8'));
  if (uri.startsWith(plain)) return JSON.parse(decodeURIComponent(uri.slice(plain.length)));
  throw new Error(`not a JSON data URI: ${uri.slice(0, 40)}`);
}

describe('deployDemo', () => {
  let automine: Devnet;
  let slowBlocks: Devnet;
  let first: DemoDeployment;
  let client: PublicClient;

  beforeAll(async () => {
    [automine, slowBlocks] = await Promise.all([startTestAnvil(), startTestAnvil({ blockTimeS: 30 })]);
    client = createPublicClient({ transport: http(automine.url, { timeout: 10_000 }) });
    first = await deployDemo({ rpcUrl: automine.url, log });
  });
  afterAll(async () => {
    await Promise.all([automine?.stop(), slowBlocks?.stop()]);
  });

  it("gives its assets to anvil's accounts 0-3, whose keys every devnet user has", () => {
    const mnemonic = 'test test test test test test test test test test test junk';
    const anvil = [0, 1, 2, 3].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }).address);
    expect(Object.values(demoAccounts)).toEqual(anvil);
    expect([dev, alice, bob, carol]).toEqual(anvil);
  });

  it('puts the contracts at the same CREATE2 addresses on every fresh devnet, without waiting for slow blocks', async () => {
    const started = Date.now();
    const second = await deployDemo({ rpcUrl: slowBlocks.url, log });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(second).toEqual(first);
    expect(first.changed).toBe(true);
    const predicted = await demoContractAddresses();
    const { token, nft, items, spamToken, spamNft } = first;
    expect({ token, nft, items, spamToken, spamNft }).toEqual(predicted);
    expect(new Set([token, nft, items, spamToken, spamNft]).size).toBe(5);
    expect(first.prices).toEqual([{ chain: 'ethereum', network: 'devnet', contract: first.token.toLowerCase(), usd: '1.00' }]);
  }, 60_000);

  it('gives the dev account and three others Blockyard Demo USD, through Transfer events', async () => {
    const read = (functionName: 'name' | 'symbol' | 'decimals' | 'totalSupply') =>
      client.readContract({ address: first.token, abi: erc20, functionName });
    expect(await read('name')).toBe('Blockyard Demo USD');
    expect(await read('symbol')).toBe('BDUSD');
    expect(await read('decimals')).toBe(6);
    expect(await read('totalSupply')).toBe(parseUnits('1000000', 6));
    const balance = (holder: `0x${string}`) =>
      client.readContract({ address: first.token, abi: erc20, functionName: 'balanceOf', args: [holder] });
    expect(await balance(dev)).toBe(parseUnits('996707.75', 6));
    expect(await balance(alice)).toBe(parseUnits('2500', 6));
    expect(await balance(bob)).toBe(parseUnits('750.25', 6));
    expect(await balance(carol)).toBe(parseUnits('42', 6));
    const transfers = await client.getLogs({
      address: first.token,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      fromBlock: 0n,
    });
    expect(transfers.map((entry) => entry.args.to)).toEqual([dev, alice, bob, carol]);
  });

  it('mints six apes with data: metadata; the dev account keeps three', async () => {
    const owners = await Promise.all(
      [1n, 2n, 3n, 4n, 5n, 6n].map((id) =>
        client.readContract({ address: first.nft, abi: erc721, functionName: 'ownerOf', args: [id] }),
      ),
    );
    expect(owners).toEqual([dev, dev, dev, alice, alice, bob]);
    expect(await client.readContract({ address: first.nft, abi: erc721, functionName: 'balanceOf', args: [dev] })).toBe(3n);
    expect(await client.readContract({ address: first.nft, abi: erc721, functionName: 'name' })).toBe('Blockyard Demo Apes');

    const metadata = decodeJsonDataUri(
      await client.readContract({ address: first.nft, abi: erc721, functionName: 'tokenURI', args: [6n] }),
    );
    expect(metadata.name).toBe('Blockyard Demo Ape #6');
    expect(typeof metadata.description).toBe('string');
    expect(String(metadata.image)).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(String(metadata.image).split(',')[1]!, 'base64').toString()).toContain('<svg');
    const attributes = metadata.attributes as { trait_type: string; value: unknown }[];
    expect(attributes.find((attribute) => attribute.trait_type === 'Level')?.value).toBe(42);
    expect(attributes.every((attribute) => typeof attribute.trait_type === 'string')).toBe(true);

    const collection = decodeJsonDataUri(
      await client.readContract({ address: first.nft, abi: erc721, functionName: 'contractURI' }),
    );
    expect(collection.name).toBe('Blockyard Demo Apes');
  });

  it('mints ERC-1155 items whose URI template carries {id}', async () => {
    const balances = await client.readContract({
      address: first.items,
      abi: erc1155,
      functionName: 'balanceOfBatch',
      args: [
        [dev, dev, dev, alice, bob, bob, alice],
        [1n, 2n, 3n, 1n, 1n, 2n, 3n],
      ],
    });
    expect(balances).toEqual([650n, 45n, 1n, 250n, 100n, 5n, 0n]);
    const template = await client.readContract({ address: first.items, abi: erc1155, functionName: 'uri', args: [2n] });
    expect(template).toContain('{id}');
    const metadata = decodeJsonDataUri(template.replaceAll('{id}', (2).toString(16).padStart(64, '0')));
    expect(metadata.name).toBe(`Blockyard Demo Item ${'0'.repeat(63)}2`);
    expect(String(metadata.image)).toMatch(/^data:image\/svg\+xml;base64,/);
    const collection = decodeJsonDataUri(
      await client.readContract({ address: first.items, abi: erc1155, functionName: 'contractURI' }),
    );
    expect(collection.name).toBe('Blockyard Demo Items');
  });

  it('keeps the addresses docs/getting-started.md prints (a change to a demo contract, solc or its settings moves them)', () => {
    expect(first.token).toBe('0x2c557E17c11A17fA0862602f544885F183E680fB');
    expect(first.nft).toBe('0x5fcE3397305F68A1D19Bd068c67E03C2B02ae4C3');
    expect(first.items).toBe('0x0CDE0d99f3F9833A1b3FAc6c8881881Dd2E00e39');
    // docs/spam.md prints these.
    expect(first.spamToken).toBe('0xeCDc4F70824351C2B1dF7f9085104601aE3EB017');
    expect(first.spamNft).toBe('0xB1B2C20077B0Eb5E82EAC76e76ebD6627F81669B');
  });

  it('airdrops a spam-shaped token and NFT collection to anvil account 5 and 24 others, each in one transaction', async () => {
    const recipients = demoSpamToken.airdrop.to;
    expect(recipients).toHaveLength(25);
    expect(recipients[0]).toBe(spamTarget);
    expect(await client.readContract({ address: first.spamToken, abi: erc20, functionName: 'name' })).toBe(
      demoSpamToken.constructorArgs[0],
    );
    expect(await client.readContract({ address: first.spamToken, abi: erc20, functionName: 'totalSupply' })).toBe(
      demoSpamToken.airdrop.amount * 25n,
    );
    const balances = await Promise.all(
      recipients.map((holder) =>
        client.readContract({ address: first.spamToken, abi: erc20, functionName: 'balanceOf', args: [holder] }),
      ),
    );
    expect(balances.every((balance) => balance === demoSpamToken.airdrop.amount)).toBe(true);
    const nftBalances = await Promise.all(
      recipients.map((holder) =>
        client.readContract({ address: first.spamNft, abi: erc721, functionName: 'balanceOf', args: [holder] }),
      ),
    );
    expect(nftBalances.every((balance) => balance === 1n)).toBe(true);
    expect(await client.readContract({ address: first.spamNft, abi: erc721, functionName: 'ownerOf', args: [1n] })).toBe(
      spamTarget,
    );
    // One transaction each: the mints of a contract share their transaction hash.
    for (const address of [first.spamToken, first.spamNft]) {
      const logs = await client.getLogs({
        address,
        fromBlock: 0n,
        event: parseAbiItem('event Transfer(address indexed, address indexed, uint256)'),
      });
      expect(logs).toHaveLength(25);
      expect(new Set(logs.map((log) => log.transactionHash)).size).toBe(1);
    }
  });

  it('installs Multicall3', async () => {
    expect(await client.getCode({ address: multicall3Address })).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(await installMulticall3(automine.url)).toBe(false);
  });

  it('does nothing on a second run: no deployment, no transfer, no block', async () => {
    const blockBefore = await client.getBlockNumber();
    const nonceBefore = await client.getTransactionCount({ address: dev });
    const again = await deployDemo({ rpcUrl: automine.url, log });
    expect(again).toEqual({ ...first, changed: false });
    expect(await client.getBlockNumber()).toBe(blockBefore);
    expect(await client.getTransactionCount({ address: dev })).toBe(nonceBefore);
  });
});
