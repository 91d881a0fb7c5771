import type { Principal } from '../auth/principal.ts';
import { assertNetworkAccess } from '../auth/principal.ts';
import type { PaymasterMethods } from '../bundler/routes.ts';
import { BundlerRpcError, bundlerErrorCodes, invalidParams } from '../bundler/rpc-errors.ts';
import { requireUserOperationObject } from '../bundler/user-operation.ts';
import type { Network } from '../chains/registry.ts';
import { isAppError } from '../core/errors.ts';
import type { SponsoredFields } from '../paymaster/paymaster-data.ts';
import type { SponsorRequest, SponsorService } from './sponsor-service.ts';

const hex = (value: bigint) => `0x${value.toString(16)}`;

/**
 * ERC-7677 on the bundler endpoint: `pm_getPaymasterStubData` and `pm_getPaymasterData`, params
 * `[userOp, entryPoint, chainId, context]` with `context: { policy_id }`, so viem's `paymaster:`
 * option and permissionless's paymaster client work unchanged.
 */
export function createErc7677Methods(sponsors: SponsorService): PaymasterMethods {
  function requestOf(network: Network, params: unknown[], principal: Principal): SponsorRequest {
    const [userOperation, entryPoint, chainId, context] = params;
    requireUserOperationObject(userOperation);
    if (typeof entryPoint !== 'string') throw invalidParams('the second parameter must be the EntryPoint address');
    if (typeof chainId !== 'string' || !/^0x[0-9a-fA-F]+$/.test(chainId) || Number(chainId) !== network.config.chainId)
      throw invalidParams(`the third parameter must be this network's chain id (${hex(BigInt(network.config.chainId))})`);
    const policyId =
      typeof context === 'object' && context !== null
        ? ((context as Record<string, unknown>).policy_id ?? (context as Record<string, unknown>).policyId)
        : undefined;
    if (typeof policyId !== 'string')
      throw invalidParams('the fourth parameter (context) must name a gas policy: { "policy_id": "gp_…" }');
    return {
      accountId: principal.accountId,
      policyId,
      chain: network.config.chain,
      network: network.config.network,
      entryPoint,
      userOperation,
      authorize: (target) => assertNetworkAccess(principal, target.config),
    };
  }

  const answer = (fields: SponsoredFields, final: boolean) =>
    fields.version !== '0.6'
      ? {
          paymaster: fields.paymaster,
          paymasterData: fields.paymasterData,
          ...(final
            ? {}
            : {
                paymasterVerificationGasLimit: hex(fields.paymasterVerificationGasLimit),
                paymasterPostOpGasLimit: hex(fields.paymasterPostOpGasLimit),
                isFinal: false,
              }),
        }
      : { paymasterAndData: fields.paymasterAndData, ...(final ? {} : { isFinal: false }) };

  async function call(network: Network, method: string, params: unknown[], principal: Principal): Promise<unknown> {
    try {
      switch (method) {
        case 'pm_getPaymasterStubData':
          return answer(await sponsors.stub(requestOf(network, params, principal)), false);
        case 'pm_getPaymasterData':
          return answer(await sponsors.sponsor(requestOf(network, params, principal)), true);
        default:
          throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `${method} is not a method of this endpoint`);
      }
    } catch (error) {
      if (!isAppError(error)) throw error;
      // An op whose call reverts keeps the bundler's own error (-32521, the revert data in `data`).
      if (error.cause instanceof BundlerRpcError) throw error.cause;
      // The REST errors in JSON-RPC form: a policy's refusal is the paymaster's (-32501), bad input -32602.
      const code =
        error.code === 'policy_violation'
          ? bundlerErrorCodes.rejectedByPaymaster
          : error.code === 'invalid_request' || error.code === 'not_found'
            ? bundlerErrorCodes.invalidParams
            : bundlerErrorCodes.internal;
      throw new BundlerRpcError(code, error.message, { code: error.code });
    }
  }

  return { call };
}
