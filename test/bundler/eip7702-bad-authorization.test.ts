import { type Address, type SignedAuthorization, toHex } from 'viem';
import {
  entryPoint06Address,
  entryPoint07Address,
  formatUserOperationRequest,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { type Eip7702Bundler, implementation, new7702Account, startEip7702Bundler } from './eip7702-support.ts';
import { countUserOperations, generousFees, postBundler } from './support.ts';

const recipient = privateKeyToAccount(generatePrivateKey()).address;

/** EIP-7702 ops refused at the door for their authorization (eip7702.test.ts has the ones that land). */
describe('EIP-7702 UserOperations (eip7702Auth, EntryPoint v0.7)', () => {
  let { service, key, url, publicClient, bundlerClient, freshEoa, authorize } = {} as Eip7702Bundler;

  beforeAll(async () => {
    ({ service, key, url, publicClient, bundlerClient, freshEoa, authorize } = await startEip7702Bundler());
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  describe('bad authorizations are -32602 naming the field, and nothing is queued', () => {
    /**
     * An op of a fresh EOA with its authorization, estimated and signed by the real client; its RPC form.
     * The authorization is not part of the userOpHash: tests swap in a bad one without signing again.
     */
    async function signedOp(): Promise<{ owner: PrivateKeyAccount; op: Record<string, unknown> }> {
      const { owner, account } = await freshEoa();
      const authorization = await authorize(owner);
      const prepared = await bundlerClient.prepareUserOperation({
        account,
        authorization,
        calls: [{ to: recipient, value: 1n }],
        ...(await generousFees(publicClient)),
      });
      const signature = await account.signUserOperation(prepared as UserOperation<'0.7'>);
      const op = formatUserOperationRequest({ ...(prepared as UserOperation<'0.7'>), signature }) as Record<string, unknown>;
      return { owner, op };
    }

    const asRpc = (authorization: SignedAuthorization) =>
      (formatUserOperationRequest({ authorization } as UserOperation<'0.7'>) as { eip7702Auth: unknown }).eip7702Auth;

    async function expectRefused(method: string, params: unknown[], field: RegExp, code = -32602): Promise<string> {
      const before = await countUserOperations(service.database.db);
      const { status, body } = await postBundler(url, key, { jsonrpc: '2.0', id: 1, method, params });
      expect(status).toBe(200);
      expect(body.result).toBeUndefined();
      expect(body.error?.code, JSON.stringify(body.error)).toBe(code);
      expect(body.error?.message).toMatch(field);
      // A poll of the bundle loop (250 ms) and more: nothing queued, nothing bundled.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await countUserOperations(service.database.db)).toBe(before);
      return body.error!.message;
    }

    it('signed by another key than the sender', async () => {
      const { owner, op } = await signedOp();
      const stranger = privateKeyToAccount(generatePrivateKey());
      const bad = await stranger.signAuthorization({ address: implementation, chainId: foundry.id, nonce: 0 });
      const message = await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth is not signed by the sender/,
      );
      expect(message).toContain(stranger.address);
      expect(message).toContain(owner.address);
      expect(await publicClient.getCode({ address: owner.address })).toBeUndefined();
    });

    it('for another chain', async () => {
      const { owner, op } = await signedOp();
      const bad = await owner.signAuthorization({ address: implementation, chainId: 1, nonce: 0 });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.chainId is 1; it must be this network's 31337/,
      );
      // Estimation checks it too (only the signer is left to the send: clients estimate with a stub signature).
      await expectRefused(
        'eth_estimateUserOperationGas',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.chainId/,
      );
    });

    it('with another nonce than the EOA’s: -32500, the chain state refuses it', async () => {
      const { owner, op } = await signedOp();
      const bad = await owner.signAuthorization({ address: implementation, chainId: foundry.id, nonce: 5 });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /^Invalid EIP-7702 authorization: userOperation\.eip7702Auth\.nonce is 5; the sender's transaction nonce is 0/,
        // Well formed and signed, but the chain's state refuses it: the account's validation would fail (ERC-7769's -32500).
        -32500,
      );
    });

    it('delegating to an address without code', async () => {
      const { owner, op } = await signedOp();
      const nowhere: Address = privateKeyToAccount(generatePrivateKey()).address;
      const bad = await owner.signAuthorization({ address: nowhere, chainId: foundry.id, nonce: 0 });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.address 0x[0-9a-fA-F]{40} has no code/,
        -32500,
      );
    });

    it('malformed: a yParity of 2, a missing address', async () => {
      const { op } = await signedOp();
      const auth = op.eip7702Auth as Record<string, unknown>;
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: { ...auth, yParity: '0x2' } }, entryPoint07Address],
        /userOperation\.eip7702Auth\.yParity must be 0x0 or 0x1/,
      );
      const { address: _, ...withoutAddress } = auth;
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: withoutAddress }, entryPoint07Address],
        /userOperation\.eip7702Auth\.address is missing/,
      );
    });

    it('with a factory (the EOA is the account; 0x7702 is EntryPoint v0.8’s marker)', async () => {
      const { op } = await signedOp();
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, factory: '0x7702', factoryData: '0x' }, entryPoint07Address],
        /userOperation\.factory 0x7702 is EntryPoint v0\.8's EIP-7702 marker: send the op to EntryPoint v0\.8/,
      );
    });

    it('a preVerificationGas that does not cover the authorization', async () => {
      const { owner, op } = await signedOp();
      const account = await new7702Account(publicClient, owner);
      const short = BigInt(op.preVerificationGas as string) - 20_000n;
      const unsigned: Record<string, string> = { ...(op as Record<string, string>), preVerificationGas: toHex(short) };
      const signature = await account.signUserOperation({
        sender: owner.address,
        nonce: BigInt(unsigned.nonce!),
        callData: unsigned.callData as `0x${string}`,
        callGasLimit: BigInt(unsigned.callGasLimit!),
        verificationGasLimit: BigInt(unsigned.verificationGasLimit!),
        preVerificationGas: short,
        maxFeePerGas: BigInt(unsigned.maxFeePerGas!),
        maxPriorityFeePerGas: BigInt(unsigned.maxPriorityFeePerGas!),
        signature: '0x',
      });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...unsigned, signature, eip7702Auth: op.eip7702Auth }, entryPoint07Address],
        /preVerificationGas \d+ is below the \d+ this operation needs/,
      );
    });

    it('on EntryPoint v0.6 with initCode (the EOA is the account; eip7702-v06.test.ts sends one that lands)', async () => {
      const { op } = await signedOp();
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, initCode: erc4337Addresses.v06.factory, paymasterAndData: '0x' }, entryPoint06Address],
        /^userOperation\.initCode must be empty with eip7702Auth/,
      );
    });
  });
});
