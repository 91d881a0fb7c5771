import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../src/chains/upstream-client.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A node that sends `parts` as separate writes of one answer, a pause between them. */
async function nodeSending(parts: Buffer[]): Promise<string> {
  const server = createServer(async (request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    for (const part of parts) {
      response.write(part);
      await sleep(20);
    }
    response.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the text of an upstream answer', () => {
  it('is the UTF-8 the node sent, a character split between two writes included', async () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: 3, message: 'exécution annulée: 漢字 ✓ 🦊' } });
    const bytes = Buffer.from(answer, 'utf8');
    const split = bytes.indexOf(Buffer.from('漢', 'utf8')) + 1;
    const client = createUpstreamClient({ url: await nodeSending([bytes.subarray(0, split), bytes.subarray(split)]) });
    try {
      expect(await client.send('{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[]}')).toBe(answer);
    } finally {
      await client.close();
    }
  });

  it('is the ASCII the node sent, byte for byte', async () => {
    const answer = JSON.stringify([{ jsonrpc: '2.0', id: 1, result: `0x${'ab'.repeat(40_000)}` }]);
    const client = createUpstreamClient({ url: await nodeSending([Buffer.from(answer, 'latin1')]) });
    try {
      expect(await client.send('[{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[]}]')).toBe(answer);
    } finally {
      await client.close();
    }
  });
});
