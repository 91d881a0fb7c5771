// Writes src/paymaster/verifying-paymaster-v08.generated.json: the creation code and ABI of
// contracts/VerifyingPaymasterV08.sol. The paymaster's CREATE2 address (which the service computes at
// start, synchronously) depends on that code, so it is kept compiled beside the source.
// Run after changing the contract: npm run generate (a test fails while the file is stale).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileContracts } from '../src/contracts/compile.ts';

const target = fileURLToPath(new URL('../src/paymaster/verifying-paymaster-v08.generated.json', import.meta.url));
const { VerifyingPaymasterV08 } = await compileContracts();
writeFileSync(
  target,
  `${JSON.stringify({ abi: VerifyingPaymasterV08.abi, bytecode: VerifyingPaymasterV08.bytecode }, null, 1)}\n`,
);
process.stdout.write(`wrote ${target}\n`);
