// EIP-55 checksums of many distinct addresses, as one page of an NFT collection's owners needs them
// (getOwnersForContract: up to 50,000 a page, src/nfts/alchemy-v3/checksum.ts). Against, in the same
// run: viem's getAddress (a JavaScript Keccak; what the v3 answers used before), on first sight and
// again (viem keeps the last 8,192 in a cache, which a page of 50,000 outgrows).
// Run: npm run bench:address-checksum
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { checksumAddress, checksumAddressesInJson } from '../src/core/address-checksum.ts';

const perPage = 50_000;
const rounds = 5;
const pages = Array.from({ length: rounds }, () => Array.from({ length: perPage }, () => `0x${randomBytes(20).toString('hex')}`));
const ownersJson = (page: string[]) => `[${page.map((address) => `"${address}"`).join(',')}]`;
const quoted = /"0x[0-9a-f]{40}"/g;

function eachOf(page: string[], checksum: (address: string) => string): void {
  for (const address of page) checksum(address);
}

function timed(run: (page: string[]) => void): { p50: number; max: number } {
  const times = pages.map((page) => {
    const started = performance.now();
    run(page);
    return performance.now() - started;
  });
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, max: times.at(-1)! };
}

const rows: [string, { p50: number; max: number }][] = [
  ['viem getAddress, first sight (baseline)', timed((page) => eachOf(page, getAddress))],
  ['viem getAddress, the same page again', timed((page) => eachOf(page, getAddress))],
  ['checksumAddress (WebAssembly Keccak)', timed((page) => eachOf(page, checksumAddress))],
  [
    'owners JSON page, viem getAddress per match (before)',
    timed((page) => ownersJson(page).replace(quoted, (q) => `"${getAddress(q.slice(1, -1))}"`)),
  ],
  ['owners JSON page, checksumAddressesInJson (in place)', timed((page) => checksumAddressesInJson(ownersJson(page)))],
];
const baseline = rows[0]![1].p50;
console.log(`${perPage.toLocaleString('en')} distinct addresses a page, ${rounds} pages, Node ${process.version}\n`);
console.log('| what | p50 ms a page | max ms | us an address | x baseline |');
console.log('|---|---:|---:|---:|---:|');
for (const [what, { p50, max }] of rows) {
  console.log(
    `| ${what} | ${p50.toFixed(1)} | ${max.toFixed(1)} | ${((p50 * 1000) / perPage).toFixed(2)} | ${(p50 / baseline).toFixed(3)} |`,
  );
}
