import { Alchemy } from 'alchemy-sdk';
import { type DemoDeployment, deployDemo } from '../../../src/demo/deploy-demo.ts';
import { type IndexedChain, startIndexedChain } from '../../indexer/support.ts';
import { createResponseChecker, type OpenApiDocument } from '../../support/openapi.ts';

/** The indexed devnet with the demo's contracts, a key, and alchemy-sdk given only the key's URL form. */
export interface AlchemyDemo {
  chain: IndexedChain;
  /** `{service}/v1/rpc/ethereum/devnet/{key}`: what alchemy-sdk is given. */
  url: string;
  alchemy: Alchemy;
  demo: DemoDeployment;
  /** Checks an answer against the service's published OpenAPI document. */
  check: ReturnType<typeof createResponseChecker>;
}

/** Starts it; the caller stops `chain.service`. */
export async function startAlchemyDemo(): Promise<AlchemyDemo> {
  const chain = await startIndexedChain();
  try {
    const url = `${chain.service.url}/v1/rpc/ethereum/devnet/${(await chain.service.createKey()).key}`;
    const document = (await (await fetch(`${chain.service.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    const demo = await deployDemo({ rpcUrl: chain.service.anvil.url, log: { info: () => undefined } });
    await chain.synced();
    return { chain, url, alchemy: new Alchemy({ url, maxRetries: 0 }), demo, check: createResponseChecker(document) };
  } catch (error) {
    await chain.service.stop();
    throw error;
  }
}
