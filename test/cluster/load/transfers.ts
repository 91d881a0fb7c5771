import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainClient } from './chain-client.ts';

const mintAbi = parseAbi(['function mint(address,uint256)']);

export interface TokenTransfers {
  /** Transactions the chain node took (each makes one Transfer log once mined). */
  sent(): number;
  /** Sends that failed and were (or will be) tried again with the same signed transaction. */
  retried(): number;
  /** Stops making new transfers (the one being sent is still tried). */
  stop(): void;
  /** True once every transfer made was taken by the chain and mined. */
  settled(): Promise<boolean>;
}

/**
 * Token transfers (mints to rotating holders: one Transfer log each) at a steady rate, signed here with
 * the minter's own nonces and sent to the chain directly. A send that fails (the chain unreachable
 * during a fault) is sent again later, the same signed transaction, so no transfer is lost or doubled.
 */
export function startTokenTransfers(deps: {
  chain: ChainClient;
  token: Address;
  minter: PrivateKeyAccount;
  startNonce: number;
  chainId: number;
  perSecond: number;
}): TokenTransfers {
  const { chain, minter } = deps;
  let nonce = deps.startNonce;
  let sent = 0;
  let retried = 0;
  let unsent: Hex | undefined;
  let sending = false;
  let stopped = false;

  async function sendOnce(raw: Hex): Promise<boolean> {
    try {
      await chain.call('eth_sendRawTransaction', [raw]);
      return true;
    } catch (error) {
      // Taken earlier though the answer was lost: counts as sent.
      return /already known|nonce too low|already imported/i.test(String(error));
    }
  }

  async function tick(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      if (!unsent) {
        if (stopped) return;
        const holder = `0x${(0xc1a5_0000_0000 + nonce).toString(16).padStart(40, '0')}` as Address;
        unsent = await minter.signTransaction({
          type: 'eip1559',
          chainId: deps.chainId,
          nonce: nonce++,
          to: deps.token,
          data: encodeFunctionData({ abi: mintAbi, args: [holder, BigInt(nonce)] }),
          gas: 150_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        });
      }
      if (await sendOnce(unsent)) {
        sent++;
        unsent = undefined;
      } else {
        retried++;
      }
    } finally {
      sending = false;
    }
  }

  const timer = setInterval(() => void tick(), 1000 / deps.perSecond);
  return {
    sent: () => sent,
    retried: () => retried,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    async settled() {
      if (unsent) await tick();
      if (unsent) return false;
      try {
        const mined = Number(BigInt(await chain.call<string>('eth_getTransactionCount', [minter.address, 'latest'])));
        return mined >= nonce;
      } catch {
        return false;
      }
    },
  };
}
