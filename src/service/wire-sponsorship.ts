import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import { type NetworkPaymasters, startPaymasters } from '../paymaster/start-paymasters.ts';
import { createSponsorService, type SponsorService } from '../sponsorship/sponsor-service.ts';
import { startSponsorshipSettler } from '../sponsorship/sponsorship-settler.ts';
import type { TokenService } from '../tokens/service.ts';

export interface Sponsorship {
  readonly sponsors: SponsorService;
  /** The paymasters and their deposits, by `chain/network` (processes serving the API). */
  readonly paymasters: ReadonlyMap<string, NetworkPaymasters>;
  /** Settles sponsorships every 2 s (processes serving the API). */
  readonly settler?: ReturnType<typeof startSponsorshipSettler>;
}

export interface SponsorshipDeps {
  readonly database: OpenDatabase;
  readonly chains: ChainRegistry;
  readonly tokens: TokenService;
}

/** Gas sponsorship: decided where the API is served, for there the paymasters' deposits are watched. */
export function wireSponsorship(ctx: Context, deps: SponsorshipDeps): Sponsorship {
  const { config, logger, shutdown } = ctx;
  const { database, chains, tokens } = deps;
  const servesApi = config.roles.includes('api');
  const paymasters = servesApi ? startPaymasters(ctx, chains) : new Map<string, NetworkPaymasters>();
  const sponsors = createSponsorService({
    db: database.db,
    networks: chains.list(),
    paymasterOf: (network, version) => paymasters.get(`${network.config.chain}/${network.config.network}`)?.setups[version],
    nativeUsdPrice: (network) => tokens.nativeUsdPrice(network),
    sponsorshipCaps: config.gas.sponsorshipCaps,
  });
  if (!servesApi) return { sponsors, paymasters };
  const settler = startSponsorshipSettler({
    db: database.db,
    networks: chains.list(),
    nativeUsdPrice: (network) => tokens.nativeUsdPrice(network),
    logger,
  });
  shutdown.add('gas sponsorship settler', () => settler.close());
  return { sponsors, paymasters, settler };
}
