import { encodePacked, keccak256, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  airdropReason,
  builtInScamSelectors,
  bytecodeReason,
  fanoutReason,
  fanoutRecipients,
  minAirdroppedMints,
  nameReasons,
  type SampledTransfer,
} from '../../src/spam/heuristics.ts';
import { confidenceOf, meetsLevel, spamScore } from '../../src/spam/reasons.ts';
import { spamVerdict } from '../../src/spam/verdict.ts';

const zero = '0x0000000000000000000000000000000000000000';
const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const deployer = address(0xdead);

/** `count` transfers in transaction `tx`, each to its own address, sent by `sender`. */
function transfers(tx: string, count: number, from: string, sender: string | null | ((to: string) => string)): SampledTransfer[] {
  return Array.from({ length: count }, (_, i) => {
    const to = address(1000 + i);
    return { txHash: tx, from, to, sender: typeof sender === 'function' ? sender(to) : sender };
  });
}

describe('spam heuristics (pure)', () => {
  it('names: blank, invisible, overlong or lure words are suspicious; links and domains are url_in_name', () => {
    expect(nameReasons('Wrapped Ether', 'WETH')).toEqual([]);
    expect(nameReasons('USD Coin', 'USDC')).toEqual([]);
    expect(nameReasons(null, 'X')).toEqual(['suspicious_name']);
    expect(nameReasons('  ', 'X')).toEqual(['suspicious_name']);
    expect(nameReasons('Tether\u200B', 'USDT')).toEqual(['suspicious_name']);
    expect(nameReasons('A'.repeat(65), 'A')).toEqual(['suspicious_name']);
    expect(nameReasons('Claim your reward', 'RWD')).toEqual(['suspicious_name']);
    expect(nameReasons('Token', 'getusdt.xyz')).toEqual(['url_in_name']);
    expect(nameReasons('https://free.example', 'FREE')).toEqual(['url_in_name']);
    expect(nameReasons('Claim 5,000 BDUSD at visit-bdusd-bonus.xyz', 'BDUSD-BONUS.XYZ')).toEqual([
      'suspicious_name',
      'url_in_name',
    ]);
  });

  it('fan-out: one transaction reaching the threshold of distinct recipients, not many small ones', () => {
    expect(fanoutReason(transfers('0x01', fanoutRecipients, deployer, deployer))).toEqual(['airdrop_fanout']);
    expect(fanoutReason(transfers('0x01', fanoutRecipients - 1, deployer, deployer))).toEqual([]);
    // The same number of recipients, one a transaction: ordinary sends.
    const spread = transfers('0x00', fanoutRecipients * 2, deployer, deployer).map((t, i) => ({ ...t, txHash: `0x${i}` }));
    expect(fanoutReason(spread)).toEqual([]);
    // Many transfers to one address in one transaction are not a fan-out.
    const same = transfers('0x02', 20, deployer, deployer).map((t) => ({ ...t, to: address(7) }));
    expect(fanoutReason(same)).toEqual([]);
  });

  it('HighAirdropPercent: most mints went to addresses that did not send the minting transaction', () => {
    const airdropped = transfers('0x03', minAirdroppedMints, zero, deployer);
    expect(airdropReason(airdropped)).toEqual(['HighAirdropPercent']);
    // Self-mints (the recipient sent the transaction) are sales or claims, not airdrops.
    const selfMinted = transfers('0x04', 30, zero, (to) => to);
    expect(airdropReason(selfMinted)).toEqual([]);
    // Half or more airdropped is enough; fewer than half is not.
    expect(airdropReason([...airdropped, ...transfers('0x05', minAirdroppedMints, zero, (to) => to)])).toEqual([
      'HighAirdropPercent',
    ]);
    expect(airdropReason([...airdropped, ...transfers('0x05', minAirdroppedMints + 1, zero, (to) => to)])).toEqual([]);
    // Transfers that are not mints, and mints whose transaction the index lacks, do not count.
    expect(airdropReason(transfers('0x06', 30, deployer, address(5)))).toEqual([]);
    expect(airdropReason(transfers('0x07', 30, zero, null))).toEqual([]);
  });

  it('bytecode: a listed code hash, or a PUSH4 of a listed selector in the dispatcher', () => {
    const selector = toFunctionSelector('airdrop(address[],uint256)');
    expect(builtInScamSelectors).toContain(selector);
    const dispatcher = `0x6080604052${'63'}${selector.slice(2)}14`;
    const known = { codeHashes: [], selectors: builtInScamSelectors };
    expect(bytecodeReason(dispatcher, known)).toEqual(['scam_bytecode']);
    expect(bytecodeReason('0x60806040526318160ddd14', known)).toEqual([]);
    expect(bytecodeReason(undefined, known)).toEqual([]);
    expect(bytecodeReason('0x', known)).toEqual([]);
    const code = '0x6080604052600080fd';
    const hash = keccak256(encodePacked(['bytes'], [code]));
    expect(bytecodeReason(code, { codeHashes: [hash], selectors: [] })).toEqual(['scam_bytecode']);
    expect(bytecodeReason(code, { codeHashes: [keccak256('0x01')], selectors: [] })).toEqual([]);
  });
});

describe('spam verdict', () => {
  it('scores reasons: an odd name alone is a hint, one strong reason is LOW, three are VERY_HIGH', () => {
    expect(spamVerdict(['suspicious_name'], undefined)).toEqual({
      is_spam: false,
      spam_reasons: ['suspicious_name'],
      confidence: null,
    });
    expect(spamVerdict(['url_in_name'], undefined)).toMatchObject({ is_spam: true, confidence: 'LOW' });
    expect(spamVerdict(['url_in_name', 'suspicious_name'], undefined)).toMatchObject({ confidence: 'MEDIUM' });
    expect(spamVerdict(['url_in_name', 'airdrop_fanout'], undefined)).toMatchObject({ confidence: 'HIGH' });
    expect(spamVerdict(['url_in_name', 'airdrop_fanout', 'HighAirdropPercent'], undefined)).toMatchObject({
      confidence: 'VERY_HIGH',
    });
    expect(spamScore(['url_in_name', 'url_in_name'])).toBe(2);
    expect(confidenceOf(1)).toBeNull();
  });

  it('the operator: deny makes anything spam (VERY_HIGH), allow wins over every heuristic', () => {
    expect(spamVerdict([], 'deny')).toEqual({ is_spam: true, spam_reasons: ['operator_deny'], confidence: 'VERY_HIGH' });
    const found = ['url_in_name', 'airdrop_fanout', 'scam_bytecode'] as const;
    expect(spamVerdict([...found], 'allow')).toEqual({ is_spam: false, spam_reasons: [...found], confidence: null });
  });

  it('a filter at a level excludes that confidence and above (LOW excludes the most)', () => {
    expect(meetsLevel('HIGH', 'LOW')).toBe(true);
    expect(meetsLevel('HIGH', 'HIGH')).toBe(true);
    expect(meetsLevel('HIGH', 'VERY_HIGH')).toBe(false);
    expect(meetsLevel(null, 'LOW')).toBe(false);
  });
});
