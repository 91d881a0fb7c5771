// The whole Blockyard service in its own process, configured from the environment the benchmark sets
// (BLOCKYARD_CONFIG, BLOCKYARD_DATA_DIR, PORT=0, LOG_LEVEL, BLOCKYARD_ADMIN_TOKEN).
import { loadConfig } from '../../src/config/load.ts';
import { startService } from '../../src/service/start-service.ts';
import { exitWhenTold } from './child-server.ts';

const config = loadConfig({ env: process.env, cwd: process.env.BLOCKYARD_DATA_DIR ?? process.cwd() });
const service = await startService(config);
exitWhenTold(() => service.stop('benchmark finished'));
process.stdout.write(`LISTENING ${service.url}\n`);
