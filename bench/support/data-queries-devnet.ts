// The devnet side of bench/data-queries.ts: code at the seeded token and NFT addresses, so that the
// APIs reading the chain as well as the index (balances, NFT collections) answer as for real
// contracts, and the blocks the seeded rows sit in, mined and indexed.
import { nftStandardOf, seededAddress, seedShape } from './data-queries-seed.ts';
import { waitForIndex } from './transfers-seed.ts';

const mineStep = 1_000;
// ERC-165 interface ids (EIP-721, EIP-1155).
const erc721Id = '80ac58cd';
const erc1155Id = 'd9b67a26';

/**
 * Runtime code answering every call with the word `calldataload(4) != refused << 224`: 1 for
 * balanceOf, totalSupply and supportsInterface of anything but `refused`, 0 for that interface; a
 * string getter (name, tokenURI) gets a word that is no string, as from a contract without it.
 */
function answerOneCode(refusedInterface: string): string {
  const word = refusedInterface.padEnd(64, '0');
  // PUSH32 word, PUSH1 4, CALLDATALOAD, EQ, ISZERO, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN
  return `0x7f${word}600435141560005260206000f3`;
}

async function devnetBatch(url: string, calls: { method: string; params: unknown[] }[], timeoutMs: number): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answers = (await response.json()) as { error?: { message?: string } }[];
  const failed = answers.find((answer) => answer.error);
  if (response.status !== 200 || failed) {
    throw new Error(`the devnet answered ${response.status} ${failed?.error?.message ?? ''} to ${calls[0]?.method}`);
  }
}

/**
 * Puts code at every seeded token and NFT contract, then mines `blocks` blocks and waits for the
 * indexer to record them (the code comes first: balances are read at the indexed head, which must
 * see it). Returns how long the mining and the indexing took.
 */
export async function prepareDevnet(options: {
  devnetUrl: string;
  databaseUrl: string;
  network: string;
  blocks: number;
  log: (line: string) => void;
}): Promise<{ mineMs: number; indexMs: number }> {
  const { devnetUrl, log } = options;
  const tokenCode = answerOneCode(erc1155Id);
  const codes = [
    ...Array.from({ length: seedShape.tokens }, (_, i) => [seededAddress('token', i + 1), tokenCode]),
    ...Array.from({ length: seedShape.nftContracts }, (_, i) => [
      seededAddress('nft', i + 1),
      answerOneCode(nftStandardOf(i + 1) === 'ERC721' ? erc1155Id : erc721Id),
    ]),
  ];
  for (let at = 0; at < codes.length; at += 500) {
    const calls = codes.slice(at, at + 500).map((params) => ({ method: 'anvil_setCode', params }));
    await devnetBatch(devnetUrl, calls, 60_000);
  }
  log(`code set at ${codes.length} token and NFT contracts; mining ${options.blocks} blocks`);
  const mining = performance.now();
  // In steps: anvil mines each block slower than the last (it keeps every block's state), and a step
  // must answer within the HTTP client's header timeout.
  for (let mined = 0; mined < options.blocks; mined += mineStep) {
    const count = Math.min(mineStep, options.blocks - mined);
    await devnetBatch(devnetUrl, [{ method: 'anvil_mine', params: [`0x${count.toString(16)}`] }], 280_000);
    log(`  ${mined + count} mined (${((performance.now() - mining) / 1000).toFixed(1)} s)`);
  }
  const mineMs = performance.now() - mining;
  log(`mined in ${(mineMs / 1000).toFixed(1)} s; waiting for the indexer`);
  const indexing = performance.now();
  await waitForIndex(options.databaseUrl, options.network, options.blocks, 1_200_000);
  const indexMs = performance.now() - indexing;
  log(`indexed in ${(indexMs / 1000).toFixed(1)} s`);
  return { mineMs, indexMs };
}
