import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * Stops the HTTP server: idle connections close at once, requests in flight get `graceMs` to finish
 * (new requests on open connections are refused with 503 meanwhile), then every connection still
 * open is closed, so a stalled or slow client cannot hold the shutdown.
 * @example shutdown.add('http server', () => closeServer(app, 10_000, logger));
 */
export async function closeServer(app: FastifyInstance, graceMs: number, logger: Logger): Promise<void> {
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace over'>((resolve) => {
    timer = setTimeout(resolve, graceMs, 'grace over');
  });
  const first = await Promise.race([closed, graceOver]);
  clearTimeout(timer);
  if (first !== 'grace over') return;
  logger.warn({ graceMs }, 'shutdown grace period over: closing the connections still open');
  app.server.closeAllConnections();
  await closed;
}
