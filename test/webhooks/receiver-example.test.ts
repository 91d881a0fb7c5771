import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, verifyBlockyardSignature } from '../../examples/webhook-receiver.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** The receiver example of docs/webhooks.md, against real deliveries of both payload formats. */
describe('examples/webhook-receiver.ts', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService();
    key = (await service.createKey()).key;
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  });

  it.each(['snake_case', 'camelCase'] as const)(
    'accepts %s deliveries signed with the secret, and nothing else',
    async (format) => {
      const bodies: { raw: string; headers: Record<string, string> }[] = [];
      // The example's server, with the example's verification, on a free port.
      const created = await fetch(`${service.url}/v1/webhooks`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: 'http://127.0.0.1:1/placeholder',
          chain: 'ethereum',
          event_type: 'new_block',
          payload_format: format,
        }),
      }).then((r) => r.json() as Promise<{ id: string; signing_secret: string }>);
      const server = startReceiver(created.signing_secret, 0);
      await new Promise((resolve) => server.once('listening', resolve));
      server.on('request', (request) => {
        let raw = '';
        request.on('data', (chunk: Buffer) => {
          raw += chunk.toString('utf8');
        });
        request.on('end', () => bodies.push({ raw, headers: request.headers as Record<string, string> }));
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      await fetch(`${service.url}/v1/webhooks/${created.id}`, {
        method: 'PATCH',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      await fetch(`${service.url}/v1/webhooks/${created.id}/test`, { method: 'POST', headers: { 'x-api-key': key } });
      const deadline = Date.now() + 10_000;
      let log: { deliveries: { status: string; attempts: { response: { status: number } }[] }[] } = { deliveries: [] };
      while (Date.now() < deadline) {
        log = await fetch(`${service.url}/v1/webhooks/${created.id}/deliveries`, { headers: { 'x-api-key': key } }).then(
          (r) => r.json() as Promise<typeof log>,
        );
        if (log.deliveries[0]?.status === 'succeeded' || log.deliveries[0]?.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      server.close();
      // The example answered 204: it verified the signature.
      expect(log.deliveries[0]).toMatchObject({ status: 'succeeded' });
      expect(log.deliveries[0]!.attempts[0]!.response.status).toBe(204);
      const [received] = bodies;
      expect(verifyBlockyardSignature(received!.raw, received!.headers, created.signing_secret)).toBe(true);
      expect(verifyBlockyardSignature(received!.raw, received!.headers, 'whsec_wrong')).toBe(false);
      expect(verifyBlockyardSignature(`${received!.raw} `, received!.headers, created.signing_secret)).toBe(false);
      const stale = Date.now() + 301_000;
      expect(verifyBlockyardSignature(received!.raw, received!.headers, created.signing_secret, stale)).toBe(false);
    },
  );
});
