import type { toSimpleSmartAccount } from 'permissionless/accounts';
import type { Address, Hex, PublicClient } from 'viem';
import {
  type BundlerClient,
  entryPoint07Address,
  formatUserOperationRequest,
  getUserOperationHash,
  type UserOperation,
} from 'viem/account-abstraction';
import type { privateKeyToAccount } from 'viem/accounts';
import type { PhaseRecorder } from './phase-stats.ts';
import { sleep, timedRequest } from './timed-request.ts';

export type SimpleAccount = Awaited<ReturnType<typeof toSimpleSmartAccount<'0.7', ReturnType<typeof privateKeyToAccount>>>>;

export interface SignedOp {
  op: UserOperation<'0.7'>;
  /** Lower-case, as the observer keys the chain's UserOperationEvent logs. */
  hash: Hex;
}

/** JSON-RPC internal error: the bundler could not decide, so the op is neither accepted nor refused. */
const internalErrorCode = -32603;
/** Each op pays this much to a fixed address: a real call, cheap. */
const payee = '0x000000000000000000000000000000000000c1a5' as Address;

/** The account's next op (nonce read from the chain), estimated by the bundler through the load balancer, signed. */
export async function prepareSignedOp(
  clients: { publicClient: PublicClient; bundlerClient: BundlerClient },
  account: SimpleAccount,
  chainId: number,
): Promise<SignedOp> {
  const fees = await clients.publicClient.estimateFeesPerGas();
  const prepared = await clients.bundlerClient.prepareUserOperation({
    account,
    calls: [{ to: payee, value: 1n }],
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  const op = { ...prepared, signature: await account.signUserOperation(prepared) } as UserOperation<'0.7'>;
  const hash = getUserOperationHash({
    userOperation: op,
    entryPointAddress: entryPoint07Address,
    entryPointVersion: '0.7',
    chainId,
  }).toLowerCase() as Hex;
  return { op, hash };
}

export type SendOutcome = { kind: 'accepted' } | { kind: 'refused'; message: string } | { kind: 'abandoned' };

/**
 * eth_sendUserOperation until the bundler decides: a hash (or "already known", or the op seen landed
 * meanwhile) is accepted; a JSON-RPC error other than internal is a refusal. No answer, a non-200 or
 * an internal error: the same op again a second later, until `closed()`.
 */
export async function sendUntilDecided(
  deps: { bundlerUrl: string; key: string; recorder: PhaseRecorder; landed: (hash: Hex) => boolean },
  signed: SignedOp,
  closed: () => boolean,
  onResend: () => void,
): Promise<SendOutcome> {
  for (let attempt = 0; !closed(); attempt++) {
    if (attempt > 0) {
      onResend();
      await sleep(1_000);
    }
    const answer = await timedRequest(deps.bundlerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': deps.key },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_sendUserOperation',
        params: [formatUserOperationRequest(signed.op), entryPoint07Address],
      }),
    });
    deps.recorder.record(answer.outcome);
    if (answer.status !== 200 || typeof answer.body !== 'object') continue;
    if (answer.body.result) return { kind: 'accepted' };
    const message = String(answer.body.error?.message ?? '');
    if (/already known/i.test(message) || deps.landed(signed.hash)) return { kind: 'accepted' };
    if (answer.body.error?.code === internalErrorCode) continue;
    return { kind: 'refused', message };
  }
  return { kind: 'abandoned' };
}
