import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import { type ConfidenceLevel, meetsLevel } from '../spam/reasons.ts';
import type { SpamService, SpamSubject } from '../spam/service.ts';
import { notSpam, type SpamFlags } from '../spam/verdict.ts';
import type { ChainReads } from './chain-reads.ts';
import type { ContractInfo } from './contract-info.ts';
import { networkName } from './contract-info.ts';
import type { NftStore } from './store.ts';

/** Which contracts a spam filter leaves out: every spam one, or those at or above a confidence level. */
export interface SpamFilter {
  readonly level?: ConfidenceLevel;
}

/** The spam verdicts of NFT collections, and the contracts an owner's spam filter leaves out. */
export function createCollectionSpam(deps: {
  spam: SpamService | undefined;
  contracts: ContractInfo;
  readsFor: (network: Network) => ChainReads;
  store: NftStore;
}) {
  const subject = (network: Network, contract: string): SpamSubject => ({
    contract,
    kind: 'nft',
    describe: async () => {
      const [name, symbol] = await Promise.all([
        deps.contracts.name(network, contract as Address).catch(() => null),
        deps.readsFor(network).read<string>(contract as Address, 'symbol'),
      ]);
      return { name, symbol: symbol.ok && symbol.value.trim() !== '' ? symbol.value : null };
    },
  });

  async function flags(network: Network, contracts: readonly string[]): Promise<Map<string, SpamFlags>> {
    if (!deps.spam || contracts.length === 0) return new Map();
    return deps.spam.flags(
      network,
      contracts.map((contract) => subject(network, contract)),
    );
  }

  async function excluded(network: Network, contracts: string[], filter: SpamFilter): Promise<string[]> {
    const verdicts = await flags(network, contracts);
    return contracts.filter((contract) => {
      const verdict = verdicts.get(contract);
      if (!verdict?.is_spam) return false;
      return filter.level === undefined || meetsLevel(verdict.confidence, filter.level);
    });
  }

  return {
    flags,
    async of(network: Network, contract: string): Promise<SpamFlags> {
      return (await flags(network, [contract])).get(contract) ?? notSpam;
    },
    /** The NFT contracts of the network judged spam (Alchemy's getSpamContracts). */
    async spamContracts(network: Network): Promise<string[]> {
      return deps.spam ? deps.spam.spamContracts(networkName(network), 'nft') : [];
    },
    /** The contracts the owner holds that the filter leaves out. */
    async excludedFor(network: Network, owner: string, filter: SpamFilter): Promise<string[]> {
      if (!deps.spam) return [];
      return excluded(network, await deps.store.ownedContracts(networkName(network), owner), filter);
    },
    /** The spam contracts among every collection the address has held, now or before (its transfers' filter). */
    async excludedFromTransfersOf(network: Network, address: string): Promise<string[]> {
      if (!deps.spam) return [];
      return excluded(network, await deps.store.everHeldContracts(networkName(network), address), {});
    },
  };
}

export type CollectionSpam = ReturnType<typeof createCollectionSpam>;
