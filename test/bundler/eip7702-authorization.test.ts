import { getAddress, pad, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  alreadyDelegated,
  authorizationProblem,
  delegateOf,
  delegationDesignator,
  formatEip7702Auth,
  parseEip7702Auth,
} from '../../src/bundler/eip7702-authorization.ts';
import { BundlerRpcError } from '../../src/bundler/rpc-errors.ts';
import { parseUserOperation, toRpcUserOperation } from '../../src/bundler/user-operation.ts';

const delegate = getAddress('0xc143fe9347ec5fe29173073a219ae20d65ecd945');
const sender = privateKeyToAccount(generatePrivateKey()).address;
const rpcAuth = {
  address: delegate,
  chainId: '0x7a69',
  nonce: '0x0',
  r: `0x${'11'.repeat(32)}`,
  s: `0x${'22'.repeat(32)}`,
  yParity: '0x01',
};

const refusal = (input: unknown) => {
  try {
    parseEip7702Auth(input);
  } catch (error) {
    if (error instanceof BundlerRpcError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
};

describe('parseEip7702Auth and formatEip7702Auth', () => {
  it('reads the form viem sends and writes it back unchanged', () => {
    const parsed = parseEip7702Auth(rpcAuth);
    expect(parsed).toEqual({ address: delegate, chainId: 31337, nonce: 0, r: rpcAuth.r, s: rpcAuth.s, yParity: 1 });
    expect(formatEip7702Auth(parsed)).toEqual(rpcAuth);
  });

  it('takes the other spellings current bundlers accept: contractAddress, v (27/28), short r and s', () => {
    const { address: _, yParity: __, ...rest } = rpcAuth;
    expect(parseEip7702Auth({ ...rest, contractAddress: delegate.toLowerCase(), v: '0x1b', r: '0x1' })).toMatchObject({
      address: delegate,
      yParity: 0,
      r: pad('0x01', { size: 32 }),
    });
    expect(parseEip7702Auth({ ...rpcAuth, yParity: '0x1', v: 28 }).yParity).toBe(1);
  });

  it.each([
    ['not an object', 'x', /userOperation\.eip7702Auth must be an object/],
    ['no address', { ...rpcAuth, address: undefined }, /userOperation\.eip7702Auth\.address is missing/],
    ['a bad address', { ...rpcAuth, address: '0x12' }, /userOperation\.eip7702Auth\.address must be a 0x address/],
    ['no chainId', { ...rpcAuth, chainId: undefined }, /userOperation\.eip7702Auth\.chainId is missing/],
    ['a non-hex nonce', { ...rpcAuth, nonce: 'seven' }, /userOperation\.eip7702Auth\.nonce must be a 0x hex number/],
    ['a yParity of 2', { ...rpcAuth, yParity: '0x02' }, /userOperation\.eip7702Auth\.yParity must be 0x0 or 0x1/],
    ['no yParity nor v', { ...rpcAuth, yParity: undefined }, /userOperation\.eip7702Auth\.yParity is missing/],
    ['yParity and v that disagree', { ...rpcAuth, v: '0x1b' }, /yParity \(1\) and v \(27\) disagree/],
    ['an r of 33 bytes', { ...rpcAuth, r: `0x${'11'.repeat(33)}` }, /userOperation\.eip7702Auth\.r must be a 0x hex number/],
    ['an r of 0', { ...rpcAuth, r: '0x0' }, /userOperation\.eip7702Auth\.r is not a valid ECDSA signature value/],
    ['an s of 0', { ...rpcAuth, s: '0x00' }, /userOperation\.eip7702Auth\.s is not a valid ECDSA signature value/],
    [
      'an r of secp256k1n',
      { ...rpcAuth, r: '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141' },
      /userOperation\.eip7702Auth\.r is not a valid ECDSA signature value/,
    ],
    ['an s of 2^256-1', { ...rpcAuth, s: `0x${'ff'.repeat(32)}` }, /userOperation\.eip7702Auth\.s is not a valid ECDSA/],
    [
      'a high s (secp256k1n/2 + 1)',
      { ...rpcAuth, s: '0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1' },
      /userOperation\.eip7702Auth\.s is above secp256k1n\/2/,
    ],
  ])('refuses %s with -32602 naming the field', (_, input, message) => {
    expect(refusal(input)).toEqual({ code: -32602, message: expect.stringMatching(message) });
  });

  it('takes the largest low s (secp256k1n/2)', () => {
    const s = '0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0';
    expect(parseEip7702Auth({ ...rpcAuth, s }).s).toBe(s);
  });
});

describe('an op with eip7702Auth', () => {
  const op = {
    sender,
    nonce: '0x0',
    callData: '0x',
    callGasLimit: '0x1',
    verificationGasLimit: '0x1',
    preVerificationGas: '0x1',
    maxFeePerGas: '0x1',
    maxPriorityFeePerGas: '0x1',
    signature: '0x',
    eip7702Auth: rpcAuth,
  };

  it('v0.7: parsed into viem’s authorization field, and back as eip7702Auth', () => {
    const parsed = parseUserOperation('0.7', op);
    expect('authorization' in parsed && parsed.authorization?.address).toBe(delegate);
    expect(toRpcUserOperation(parsed).eip7702Auth).toEqual(rpcAuth);
    expect('authorization' in parseUserOperation('0.7', { ...op, eip7702Auth: null })).toBe(false);
  });

  it('v0.6: taken with an empty initCode (the EOA is the account), refused with one, naming the field', () => {
    const v06 = { ...op, initCode: '0x', paymasterAndData: '0x' };
    expect(parseUserOperation('0.6', v06)).toMatchObject({ authorization: { address: delegate } });
    expect(() => parseUserOperation('0.6', { ...v06, initCode: `${delegate}00` })).toThrow(
      /^userOperation\.initCode must be empty with eip7702Auth/,
    );
  });
});

describe('delegation designators', () => {
  it('are 0xef0100 and the address, and read back', () => {
    const code = delegationDesignator(delegate);
    expect(code).toBe(`0xef0100${delegate.slice(2).toLowerCase()}`);
    expect(delegateOf(code)).toBe(delegate);
    expect(delegateOf('0x6080')).toBeUndefined();
    expect(delegateOf(undefined)).toBeUndefined();
    expect(alreadyDelegated(code, delegate)).toBe(true);
    expect(alreadyDelegated(code, zeroAddress)).toBe(false);
  });
});

describe('authorizationProblem', () => {
  const auth = parseEip7702Auth(rpcAuth);
  const facts = {
    sender,
    chainId: 31337,
    senderNonce: 0,
    senderCode: undefined,
    delegateCode: '0x6080' as const,
    signer: sender,
  };

  it('accepts a good authorization, and chain id 0 (any chain)', () => {
    expect(authorizationProblem(auth, facts)).toBeUndefined();
    expect(authorizationProblem({ ...auth, chainId: 0 }, facts)).toBeUndefined();
  });

  it('skips the nonce when the sender already has this delegation; a moved nonce is the chain state refusing it', () => {
    const problem = authorizationProblem(auth, { ...facts, senderNonce: 3 });
    expect(problem?.message).toMatch(/nonce is 0; the sender's transaction nonce is 3/);
    expect(problem?.byChainState).toBe(true);
    expect(authorizationProblem(auth, { ...facts, senderNonce: 3, senderCode: delegationDesignator(delegate) })).toBeUndefined();
  });

  it('leaves the signer out when it was not checked (estimation), and names it when it differs', () => {
    expect(authorizationProblem(auth, { ...facts, signer: undefined })).toBeUndefined();
    expect(authorizationProblem(auth, { ...facts, signer: null })).toEqual({
      message: expect.stringMatching(/does not recover to any address/),
      byChainState: false,
    });
    expect(authorizationProblem(auth, { ...facts, signer: zeroAddress })?.message).toMatch(/not signed by the sender/);
  });

  it('refuses another chain, the zero address, a delegate without code or itself delegated', () => {
    const own = (message: RegExp) => ({ message: expect.stringMatching(message), byChainState: false });
    expect(authorizationProblem({ ...auth, chainId: 1 }, facts)).toEqual(own(/chainId is 1/));
    expect(authorizationProblem({ ...auth, address: zeroAddress }, facts)).toEqual(own(/zero address/));
    expect(authorizationProblem(auth, { ...facts, delegateCode: delegationDesignator(sender) })).toEqual(
      own(/itself a delegated EOA/),
    );
    expect(authorizationProblem(auth, { ...facts, delegateCode: undefined })).toEqual({
      message: expect.stringMatching(/has no code/),
      byChainState: true,
    });
  });
});
