import type { Logger } from 'pino';
import type { Address, PublicClient } from 'viem';
import type { Network } from '../chains/registry.ts';
import { emptySpamConfig, type SpamConfig } from '../config/spam-settings.ts';
import type { Database } from '../db/connect.ts';
import type { SpamContractKind, SpamListName } from '../db/tables/spam.ts';
import { builtInScamSelectors, heuristicReasons } from './heuristics.ts';
import type { SpamReason } from './reasons.ts';
import { createSpamReports, type SpamReports } from './reports.ts';
import { createSpamStore, type SpamListEntry, type StoredClassification } from './store.ts';
import { type ListVerdict, type SpamFlags, spamVerdict } from './verdict.ts';

/** A contract to judge; `describe` gives its name and symbol, read only when it is classified. */
export interface SpamSubject {
  readonly contract: string;
  readonly kind: SpamContractKind;
  readonly describe: () => Promise<{ name: string | null; symbol: string | null }>;
}

/** A classification is read again after this long: an airdrop may come after the first look. */
const classificationTtlMs = 10 * 60 * 1000;
/** A contract with no indexed transfer yet is looked at again soon (the index may be catching up). */
const unsampledTtlMs = 30 * 1000;
/** Contracts classified while a request waits; the others are classified in the background. */
export const maxClassificationsPerCall = 25;
const maxBackground = 200;
const maxRemembered = 100_000;
const parallel = 5;
/** Classified contracts getSpamContracts reads at most (one index range). */
export const maxListedContracts = 10_000;

export const networkId = (network: Network) => `${network.config.chain}/${network.config.network}`;

export interface SpamService {
  /**
   * The verdict on each contract: its classification (memory, table, else computed now, bounded by
   * `maxClassificationsPerCall`) with the operator's lists (settings and admin API).
   */
  flags(network: Network, subjects: readonly SpamSubject[]): Promise<Map<string, SpamFlags>>;
  /**
   * Contracts of a kind on the network judged spam: of the first `maxListedContracts` classified
   * ones (by address), and every denied contract, sorted. Alchemy's getSpamContracts.
   */
  spamContracts(network: string, kind: SpamContractKind): Promise<string[]>;
  listEntries(network: string): Promise<SpamListEntry[]>;
  setListEntry(network: string, contract: string, list: SpamListName, note: string | null): Promise<SpamListEntry>;
  removeListEntry(network: string, contract: string): Promise<boolean>;
  /** Reports from accounts (Alchemy's reportSpam), kept for operators; they change no verdict. */
  readonly reports: SpamReports;
  /** The settings' list a contract is on, if any. */
  configuredList(network: string, contract: string): ListVerdict;
  /** The settings' lists of a network. */
  configuredLists(network: string): { allow: string[]; deny: string[] };
}

/** Spam flags of token and NFT contracts (docs/spam.md). */
export function createSpamService(deps: {
  db: Database;
  config: SpamConfig | undefined;
  clientFor: (network: Network) => PublicClient;
  logger: Logger;
  now?: () => number;
}): SpamService {
  const config = deps.config ?? emptySpamConfig;
  const now = deps.now ?? Date.now;
  const store = createSpamStore(deps.db);
  const known = { codeHashes: config.scamCodeHashes, selectors: [...builtInScamSelectors, ...config.scamSelectors] };
  const memory = new Map<string, StoredClassification>();
  const background = new Set<string>();

  const fresh = (row: StoredClassification) =>
    now() - row.classifiedAt.getTime() < (row.sampledTransfers > 0 ? classificationTtlMs : unsampledTtlMs);

  function remember(id: string, row: StoredClassification) {
    if (memory.size >= maxRemembered) memory.clear();
    memory.set(`${id}|${row.contract}`, row);
  }

  async function classify(network: Network, subject: SpamSubject): Promise<StoredClassification> {
    const id = networkId(network);
    const [sample, code, { name, symbol }] = await Promise.all([
      store.sampleTransfers(id, subject.kind, subject.contract),
      deps
        .clientFor(network)
        .getCode({ address: subject.contract as Address })
        .catch(() => undefined),
      subject.describe(),
    ]);
    const reasons: SpamReason[] = heuristicReasons({ name, symbol, sample, code, known });
    const row = { contract: subject.contract, reasons, sampledTransfers: sample.length };
    await store.saveClassification(id, subject.kind, row);
    return { ...row, classifiedAt: new Date(now()) };
  }

  async function classifyAll(network: Network, subjects: readonly SpamSubject[]): Promise<StoredClassification[]> {
    const done: StoredClassification[] = [];
    for (let i = 0; i < subjects.length; i += parallel) {
      done.push(...(await Promise.all(subjects.slice(i, i + parallel).map((subject) => classify(network, subject)))));
    }
    return done;
  }

  function inBackground(network: Network, subjects: readonly SpamSubject[]) {
    const id = networkId(network);
    const queued = subjects.filter((s) => !background.has(`${id}|${s.contract}`)).slice(0, maxBackground - background.size);
    if (queued.length === 0) return;
    for (const s of queued) background.add(`${id}|${s.contract}`);
    classifyAll(network, queued)
      .then((rows) => {
        for (const row of rows) remember(id, row);
      })
      .catch((error: unknown) => deps.logger.warn({ err: error, network: id }, 'spam classification failed'))
      .finally(() => {
        for (const s of queued) background.delete(`${id}|${s.contract}`);
      });
  }

  async function classifications(network: Network, subjects: readonly SpamSubject[]) {
    const id = networkId(network);
    const found = new Map<string, StoredClassification>();
    const unknown: SpamSubject[] = [];
    for (const subject of subjects) {
      const row = memory.get(`${id}|${subject.contract}`);
      if (row && fresh(row)) found.set(subject.contract, row);
      else unknown.push(subject);
    }
    for (const row of await store.classifications(
      id,
      unknown.map((s) => s.contract),
    )) {
      if (!fresh(row)) continue;
      remember(id, row);
      found.set(row.contract, row);
    }
    const missing = unknown.filter((s) => !found.has(s.contract));
    const waiting = missing.slice(0, maxClassificationsPerCall);
    inBackground(network, missing.slice(maxClassificationsPerCall));
    for (const row of await classifyAll(network, waiting)) {
      remember(id, row);
      found.set(row.contract, row);
    }
    return found;
  }

  function listOf(network: string, contract: string, listed: ReadonlyMap<string, SpamListName>): ListVerdict {
    const lists = [configuredList(network, contract), listed.get(contract)];
    // Deny anywhere wins, then allow anywhere, then the heuristics.
    return lists.includes('deny') ? 'deny' : lists.includes('allow') ? 'allow' : undefined;
  }

  async function spamContracts(network: string, kind: SpamContractKind): Promise<string[]> {
    const [rows, entries] = await Promise.all([
      store.classifiedContracts(network, kind, maxListedContracts),
      store.listEntries(network),
    ]);
    const listed = new Map(entries.map((entry) => [entry.contract, entry.list]));
    const denied = [...(config.deny.get(network) ?? []), ...entries.filter((e) => e.list === 'deny').map((e) => e.contract)];
    const judged = rows.filter((row) => spamVerdict(row.reasons, listOf(network, row.contract, listed)).is_spam);
    return [...new Set([...judged.map((row) => row.contract), ...denied])].sort();
  }

  function configuredList(network: string, contract: string): ListVerdict {
    if (config.deny.get(network)?.has(contract)) return 'deny';
    if (config.allow.get(network)?.has(contract)) return 'allow';
    return undefined;
  }

  return {
    configuredList,
    configuredLists: (network) => ({
      allow: [...(config.allow.get(network) ?? [])].sort(),
      deny: [...(config.deny.get(network) ?? [])].sort(),
    }),
    async flags(network, subjects) {
      const id = networkId(network);
      const distinct = [...new Map(subjects.map((s) => [s.contract, s])).values()];
      const [rows, entries] = await Promise.all([
        classifications(network, distinct),
        store.listEntries(
          id,
          distinct.map((s) => s.contract),
        ),
      ]);
      const listed = new Map(entries.map((entry) => [entry.contract, entry.list]));
      return new Map(
        distinct.map((s) => {
          return [s.contract, spamVerdict(rows.get(s.contract)?.reasons ?? [], listOf(id, s.contract, listed))];
        }),
      );
    },
    spamContracts,
    listEntries: (network) => store.listEntries(network),
    setListEntry: (network, contract, list, note) => store.setListEntry(network, contract, list, note),
    removeListEntry: (network, contract) => store.removeListEntry(network, contract),
    reports: createSpamReports(deps.db),
  };
}
