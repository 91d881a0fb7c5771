import { parseArgs } from 'node:util';
import { startDevnet } from '../chains/devnet.ts';
import { installMulticall3 } from '../contracts/install-multicall3.ts';
import { installErc4337Contracts } from '../erc4337/contracts/install.ts';
import { createLogger } from '../observability/logger.ts';

export const devnetUsage = `Usage: blockyard devnet [--host H] [--port N] [--block-time SECONDS] [--chain-id N] [--data-dir DIR]

Runs a devnet (anvil, from the @foundry-rs/anvil npm package) for several Blockyard nodes to share,
with the contracts the embedded devnet has at their usual addresses: Multicall3, the ERC-4337
EntryPoints v0.6, v0.7 and v0.8 and their account factories. The verifying paymasters are not installed
(they are the embedded devnet's, made for its sponsor key). Stops on SIGTERM or Ctrl-C.

Options:
  --host H             the address to listen on (default 127.0.0.1; 0.0.0.0 in a container)
  --port N             default 8545
  --block-time S       seconds between blocks (default 1); 0 mines a block for each transaction
  --chain-id N         default 31337
  --data-dir DIR       keep the chain's state here across restarts (default: nothing kept)
  -h, --help           print this and exit`;

/** `blockyard devnet`: the shared chain of a multi-node devnet (the compose file's `chain` service). */
export async function runDevnet(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8545' },
      'block-time': { type: 'string', default: '1' },
      'chain-id': { type: 'string', default: '31337' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${devnetUsage}\n`);
    return 0;
  }
  const port = wholeNumber('--port', values.port, 1, 65_535);
  const blockTimeS = wholeNumber('--block-time', values['block-time'], 0, 3_600);
  // 0 is anvil's automine: a block for each transaction, as the ERC-4337 bundler spec tests expect.
  const automine = blockTimeS === 0;
  const chainId = wholeNumber('--chain-id', values['chain-id'], 1, 2 ** 53 - 1);
  const logger = createLogger('info');
  const devnet = await startDevnet({
    ...(values['data-dir'] === undefined ? {} : { dir: values['data-dir'] }),
    ...(automine ? {} : { blockTimeS }),
    chainId,
    logger,
    listen: { host: values.host, port },
  });
  try {
    await installMulticall3(devnet.url);
    await installErc4337Contracts(devnet.url);
  } catch (error) {
    await devnet.stop();
    throw error;
  }
  logger.info(
    { listen: `${values.host}:${port}`, chainId, blockTimeS: automine ? 'automine' : blockTimeS },
    'devnet ready: Multicall3 and ERC-4337 contracts installed',
  );
  const exitCode = await new Promise<number>((resolve) => {
    devnet.onUnexpectedExit(() => resolve(1));
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve(0));
  });
  await devnet.stop();
  return exitCode;
}

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw Object.assign(new Error(`${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`), {
      name: 'ConfigError',
    });
  }
  return value;
}
