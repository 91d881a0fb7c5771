import { pino } from 'pino';
import { type Devnet, startDevnet } from '../../src/chains/devnet.ts';

/** A real anvil for tests: automine unless a block time is given, silent logs. Stop it in afterEach/afterAll. */
export function startTestAnvil(options: { blockTimeS?: number; dir?: string; chainId?: number } = {}): Promise<Devnet> {
  return startDevnet({ ...options, logger: pino({ level: 'silent' }) });
}
