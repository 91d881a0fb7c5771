import type { Abi, Address } from 'viem';
import { deployTestContracts, type TestContracts } from '../../support/contracts.ts';
import { createResponseChecker, type OpenApiDocument } from '../../support/openapi.ts';
import type { TestService } from '../../support/service.ts';

export const network = 'ethereum/devnet';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
type ResponseBody = any;

/** anvil's default accounts 1-3: holders in the tests. */
export const holders = [
  '0x70997970c51812dc3a010c7d01b50e5d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e96c4a0ef2c3ef31bcf8',
] as const;

export interface NftFixture {
  contracts: TestContracts;
  key: string;
  /** Calls a contract function from the deployer and waits for its receipt. */
  send(contract: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<void>;
  /** GET or POST a /v1 path with the key; the answer is checked against the published OpenAPI schema. */
  call(
    method: string,
    path: string,
    template: string,
    init?: { body?: string; key?: string },
  ): Promise<{ status: number; body: ResponseBody }>;
  /** Puts an ownership row in the index, as the indexer would. */
  own(contract: Address, tokenId: bigint, owner: string, standard: 'ERC721' | 'ERC1155', amount?: bigint): Promise<void>;
}

export async function createNftFixture(t: TestService): Promise<NftFixture> {
  const [contracts, { key }, doc] = await Promise.all([
    deployTestContracts(t.anvil.url),
    t.createKey({ plan: 'enterprise' }),
    fetch(`${t.url}/v1/openapi.json`).then((response) => response.json() as Promise<OpenApiDocument>),
  ]);
  const check = createResponseChecker(doc);
  return {
    contracts,
    key,
    async send(contract, abi, functionName, args) {
      const hash = await contracts.wallet.writeContract({ address: contract, abi, functionName, args });
      const receipt = await contracts.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
      if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
    },
    async call(method, path, template, init = {}) {
      const response = await fetch(`${t.url}${path}`, {
        method,
        headers: { 'x-api-key': init.key ?? key, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: init.body,
        signal: AbortSignal.timeout(20_000),
      });
      const body = await response.json();
      check(method, template, response.status, body);
      return { status: response.status, body };
    },
    async own(contract, tokenId, owner, standard, amount = 1n) {
      await t.database.db
        .insertInto('nft_ownership')
        .values({ network, contract: contract.toLowerCase(), token_id: tokenId, owner, standard, amount })
        .execute();
    },
  };
}
