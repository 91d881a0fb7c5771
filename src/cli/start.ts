import { loadConfig } from '../config/load.ts';
import { startService } from '../service/start-service.ts';
import { formatBanner } from './banner.ts';
import { parseStartFlags } from './flags.ts';

/** `blockyard start`: runs until SIGTERM or SIGINT, then drains and stops everything. */
export async function runStart(args: string[]): Promise<number> {
  const config = loadConfig({ flags: parseStartFlags(args) });
  const service = await startService(config);
  process.stdout.write(formatBanner(service));

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    service.stop(signal).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // If the devnet dies the service keeps answering, but /healthz says so (see the devnet module's log line).
  return 0;
}
