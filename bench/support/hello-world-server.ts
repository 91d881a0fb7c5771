// Baseline: a bare Fastify POST route returning a small JSON object, in its own process.
import Fastify from 'fastify';
import { exitWhenTold } from './child-server.ts';

const app = Fastify({ logger: false });
app.post('/', async () => ({ jsonrpc: '2.0', id: 1, result: '0x1' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
exitWhenTold(() => app.close());
process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
