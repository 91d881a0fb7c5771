import { keccak256, toFunctionSelector } from 'viem';
import type { SpamReason } from './reasons.ts';

// Pure checks, one reason code each (docs/spam.md). They read what the caller gathered: the name and
// symbol, a sample of the contract's first indexed transfers, its runtime code.

/** Longer names are either a message or an attack on the reader's screen. */
const maxPlainNameLength = 64;
/** Control, zero-width and bidirectional characters: invisible, or they reorder what follows. */
const invisibleCharacters = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/u;
const urlPattern =
  /(https?:\/\/|www\.|t\.me\/|\b[a-z0-9-]{2,}\.(com|io|xyz|net|org|app|site|online|top|click|live|fun|gift|claims?|finance|link|me|pro|vip|cc|to)\b)/i;
const lurePattern = /\b(claim|visit|reward|airdrop|voucher|bonus|redeem)\b/i;

/**
 * `suspicious_name`: no name or symbol, invisible characters, longer than a name is, or lure words
 * (claim, visit, reward...); `url_in_name`: a link or a domain name in the name or symbol.
 */
export function nameReasons(name: string | null, symbol: string | null): SpamReason[] {
  const texts = [name, symbol];
  const suspicious = texts.some(
    (text) =>
      text === null ||
      text.trim() === '' ||
      invisibleCharacters.test(text) ||
      text.length > maxPlainNameLength ||
      lurePattern.test(text),
  );
  const withUrl = texts.some((text) => text !== null && urlPattern.test(text));
  return [...(suspicious ? (['suspicious_name'] as const) : []), ...(withUrl ? (['url_in_name'] as const) : [])];
}

/** One indexed transfer of the contract, with the transaction's sender. */
export interface SampledTransfer {
  readonly txHash: string;
  readonly from: string;
  readonly to: string;
  /** The transaction's `from`; null when the index has not the transaction. */
  readonly sender: string | null;
}

/** Distinct recipients in one transaction from which delivering a contract's tokens is an airdrop. */
export const fanoutRecipients = 10;
/** Mints to an address that did not send the transaction, from which their share is judged. */
export const minAirdroppedMints = 10;
/** Share of those mints from which a collection is mostly airdropped. */
export const airdropShare = 0.5;

const zeroAddress = '0x0000000000000000000000000000000000000000';

/** `airdrop_fanout`: one transaction delivered the contract's tokens to many distinct addresses. */
export function fanoutReason(sample: readonly SampledTransfer[]): SpamReason[] {
  const recipients = new Map<string, Set<string>>();
  for (const transfer of sample) {
    const set = recipients.get(transfer.txHash) ?? new Set<string>();
    set.add(transfer.to);
    recipients.set(transfer.txHash, set);
  }
  return [...recipients.values()].some((set) => set.size >= fanoutRecipients) ? ['airdrop_fanout'] : [];
}

/** `HighAirdropPercent` (Alchemy's name): most mints went to addresses that did not ask for them. */
export function airdropReason(sample: readonly SampledTransfer[]): SpamReason[] {
  const mints = sample.filter((transfer) => transfer.from === zeroAddress && transfer.sender !== null);
  const airdropped = mints.filter((transfer) => transfer.sender !== transfer.to).length;
  return airdropped >= minAirdroppedMints && airdropped / mints.length >= airdropShare ? ['HighAirdropPercent'] : [];
}

/**
 * Entry points of mass airdrops and "claim your reward" lures. A signal, not proof: the operator adds
 * their own (spam.scam_selectors) and known scam code hashes (spam.scam_code_hashes).
 */
export const builtInScamSelectors: readonly string[] = [
  'airdrop(address[],uint256)',
  'airdrop(address[])',
  'claimReward()',
  'claimRewards()',
].map((signature) => toFunctionSelector(signature));

/** `scam_bytecode`: the runtime code is a known scam's, or dispatches one of the listed selectors (PUSH4). */
export function bytecodeReason(code: string | undefined, known: { codeHashes: readonly string[]; selectors: readonly string[] }) {
  if (code === undefined || code === '0x') return [];
  const lower = code.toLowerCase();
  if (known.codeHashes.length > 0 && known.codeHashes.includes(keccak256(lower as `0x${string}`)))
    return ['scam_bytecode'] as SpamReason[];
  const hit = known.selectors.some((selector) => lower.includes(`63${selector.slice(2)}`));
  return hit ? (['scam_bytecode'] as SpamReason[]) : [];
}

/** Every heuristic over what was gathered about a contract. */
export function heuristicReasons(facts: {
  name: string | null;
  symbol: string | null;
  sample: readonly SampledTransfer[];
  code: string | undefined;
  known: { codeHashes: readonly string[]; selectors: readonly string[] };
}): SpamReason[] {
  return [
    ...nameReasons(facts.name, facts.symbol),
    ...fanoutReason(facts.sample),
    ...airdropReason(facts.sample),
    ...bytecodeReason(facts.code, facts.known),
  ];
}
