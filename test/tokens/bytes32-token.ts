import { type Address, concatHex, type Hex, numberToHex, padHex, stringToHex, toFunctionSelector } from 'viem';

/**
 * Runtime code of a token in the style of MKR (2017): `name()` and `symbol()` return `bytes32`, not
 * `string`. Assembled by hand because solc cannot be told to compile a separate test contract set;
 * every other call reverts.
 */
export function bytes32TokenCode(token: {
  name: string;
  symbol: string;
  decimals: number;
  supply: bigint;
  balance: bigint;
}): Hex {
  const word = (value: Hex) => padHex(value, { size: 32 });
  const text = (value: string) => padHex(stringToHex(value), { size: 32, dir: 'right' });
  const answers: [string, Hex][] = [
    ['name()', text(token.name)],
    ['symbol()', text(token.symbol)],
    ['decimals()', word(numberToHex(token.decimals))],
    ['totalSupply()', word(numberToHex(token.supply))],
    ['balanceOf(address)', word(numberToHex(token.balance))],
  ];
  // Layout: dispatcher (selector compare + PUSH2 target + JUMPI per answer), revert, answer blocks.
  const dispatchSize = 6 + answers.length * 11 + 5;
  const answerSize = 1 + 33 + 3 + 1; // JUMPDEST PUSH32 w PUSH2 ret JUMP
  const returnAt = dispatchSize + answers.length * answerSize;
  const parts: Hex[] = ['0x600035', '0x60e01c']; // PUSH1 0 CALLDATALOAD PUSH1 0xe0 SHR
  answers.forEach(([signature], index) => {
    const target = dispatchSize + index * answerSize;
    parts.push(
      '0x80',
      `0x63${toFunctionSelector(signature).slice(2)}`,
      '0x14',
      `0x61${numberToHex(target, { size: 2 }).slice(2)}`,
      '0x57',
    );
  });
  parts.push('0x60006000fd'); // PUSH1 0 PUSH1 0 REVERT
  for (const [, value] of answers) {
    parts.push('0x5b', `0x7f${value.slice(2)}`, `0x61${numberToHex(returnAt, { size: 2 }).slice(2)}`, '0x56');
  }
  parts.push('0x5b60005260206000f3'); // JUMPDEST PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  return concatHex(parts);
}

export const bytes32TokenAddress: Address = '0x00000000000000000000000000000000000b1732';
