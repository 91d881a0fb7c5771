import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ConfigError } from './config-error.ts';
import { addressSchema, closedObject, identifierSchema } from './json-schema-parts.ts';

const listEntry = closedObject({ chain: identifierSchema, network: identifierSchema, contract: addressSchema }, [
  'chain',
  'network',
  'contract',
]);

/** YAML `spam:` section: the operator's lists and the bytecode patterns of known scams (docs/spam.md). */
export const spamSettingsSchema = closedObject({
  /** Never spam, whatever the heuristics find. */
  allow: { type: 'array', items: listEntry, maxItems: 100_000 },
  /** Always spam (reason `operator_deny`). */
  deny: { type: 'array', items: listEntry, maxItems: 100_000 },
  /** keccak256 of the runtime code of known scam contracts. */
  scam_code_hashes: {
    type: 'array',
    items: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
    maxItems: 10_000,
  } as const satisfies JSONSchema,
  /** Four-byte selectors whose presence in a contract's code marks a scam pattern (added to the built-in ones). */
  scam_selectors: {
    type: 'array',
    items: { type: 'string', pattern: '^0x[0-9a-fA-F]{8}$' },
    maxItems: 1000,
  } as const satisfies JSONSchema,
});

export interface SpamConfig {
  /** `chain/network` -> lower-case contracts. */
  readonly allow: ReadonlyMap<string, ReadonlySet<string>>;
  readonly deny: ReadonlyMap<string, ReadonlySet<string>>;
  /** Lower-case. */
  readonly scamCodeHashes: readonly string[];
  /** Lower-case, 0x + 8 hex digits. */
  readonly scamSelectors: readonly string[];
}

export const emptySpamConfig: SpamConfig = { allow: new Map(), deny: new Map(), scamCodeHashes: [], scamSelectors: [] };

type Entry = { chain: string; network: string; contract: string };

function byNetwork(entries: readonly Entry[] | undefined): Map<string, Set<string>> {
  const lists = new Map<string, Set<string>>();
  for (const entry of entries ?? []) {
    const id = `${entry.chain}/${entry.network}`;
    const set = lists.get(id) ?? new Set<string>();
    set.add(entry.contract.toLowerCase());
    lists.set(id, set);
  }
  return lists;
}

/** The `spam:` section; a contract on both lists of one network stops the start. */
export function buildSpam(section: FromSchema<typeof spamSettingsSchema> | undefined): SpamConfig {
  const allow = byNetwork(section?.allow);
  const deny = byNetwork(section?.deny);
  for (const [network, contracts] of allow) {
    for (const contract of contracts) {
      if (deny.get(network)?.has(contract))
        throw new ConfigError('spam.allow', `${contract} on ${network} is on both spam.allow and spam.deny`);
    }
  }
  return {
    allow,
    deny,
    scamCodeHashes: (section?.scam_code_hashes ?? []).map((hash) => hash.toLowerCase()),
    scamSelectors: (section?.scam_selectors ?? []).map((selector) => selector.toLowerCase()),
  };
}
