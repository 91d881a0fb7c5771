// The explanatory lines bench/bundler.ts prints under its tables: what each column means and how
// the sections ran.
import type { BundlerBenchSettings } from './bundler-settings.ts';
import type { SponsorshipResult } from './bundler-sponsorship.ts';
import { sponsorshipPolicyRules } from './bundler-sponsorship.ts';

export function opNotes(facts: { headPollErrors: number; traced: number; samples: number }): string[] {
  return [
    `accuracy = actualGasUsed (eth_getUserOperationReceipt) / (preVerificationGas + verificationGasLimit + callGasLimit) as estimated; ` +
      `bundle tx gasUsed - actualGasUsed above 0 means the bundle cost its executor more gas than the op was charged (one op per bundle)`,
    `inclusion: the receipt's block minus anvil's eth_blockNumber just before eth_sendUserOperation (1 = the next block)`,
    `timing: block arrivals from eth_blockNumber polled every 5 ms on anvil (${facts.headPollErrors} poll errors); ` +
      `"left to next block" = that block's arrival - the send's start; verification used = preOpGas (innerHandleOp's opInfo in the ` +
      `bundle's callTracer trace) - preVerificationGas; execution used = what the EntryPoint counted after validation, its 10% ` +
      `unused-gas penalty removed (v0.8 charges it only above 40,000 unused); account call frame = the account's execute call (${facts.traced} of ${facts.samples} bundles traced)`,
  ];
}

export function queuedNotes(settings: BundlerBenchSettings, timeoutS: number): string[] {
  return [
    `queued ops: per bundler, ${settings.queuedSenders} fresh SimpleAccount v0.7 accounts (anvil_setBalance 0.1 ETH) send ` +
      `${settings.queuedOpsPerSender} ops each with nonces 0-${settings.queuedOpsPerSender - 1} (key 0; the first deploys the account, ` +
      `the later ones reuse its estimated limits and carry no factory), all signed first; the senders at once, each op sent as soon ` +
      `as the previous send of its sender was answered; receipts polled every ${settings.receiptPollMs * 5} ms (16 calls at a time) ` +
      `for ${timeoutS} s at most; ops/s landed = ops landed / (first send -> last receipt seen); one bundler at a time`,
  ];
}

export function sponsorshipNotes(settings: BundlerBenchSettings, sponsorship: SponsorshipResult, tookS: number): string[] {
  return [
    `sponsorship: a gas policy of the bench's enterprise account (rules ${JSON.stringify(sponsorshipPolicyRules)}), ETH at the devnet's ` +
      `price; sponsor calls: ${settings.sponsorCalls} iterations (after 5 unmeasured) of the five calls above, one at a time, ` +
      `each on a fresh counterfactual SimpleAccount v0.7 op (factory args, a 0-wei call, gas from one estimate with stub data: ` +
      `preVerificationGas ${sponsorship.latency.gas.preVerificationGas}, verificationGasLimit ` +
      `${sponsorship.latency.gas.verificationGasLimit}, callGasLimit ${sponsorship.latency.gas.callGasLimit}; reserved ` +
      `$${(sponsorship.latency.sponsoredUsd[0] ?? Number.NaN).toFixed(2)} each)`,
    `sponsored ops: ${settings.sponsoredOps / 2} accounts with no ETH (after 1 unmeasured), each a deploy op then a plain op ` +
      `(a 0-wei call) sent by viem's bundler client with Blockyard as ERC-7677 paymaster, each after a random 0-1 s pause; ` +
      `"sendUserOperation, whole" = viem's call (nonce and fee reads, stub data, estimate, paymaster data, signing, the send); ` +
      `send -> receipt from the eth_sendUserOperation request; block arrivals polled every 5 ms (${sponsorship.headPollErrors} errors)`,
    `sponsorship section: ${sponsorship.latency.calls.sponsor.length} sponsor calls, ${sponsorship.ops.length} of ` +
      `${settings.sponsoredOps} sponsored ops measured${sponsorship.cutShort ? ' (cut short by the time budget)' : ''}; ` +
      `it took ${tookS.toFixed(0)} s`,
  ];
}
