import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.ts';
import { type ListenConnection, startListenConnection } from '../db/listen-connection.ts';
import { keyChangedChannel } from './key-change-store.ts';

/**
 * Makes a key change made through any process (restrict, rotate, revoke) reach this one at once: the
 * changed key leaves the authentication cache, so its next request reads the key as it now is. While
 * the connection was down, any key may have changed: the whole cache goes.
 */
export function startKeyChangeListener(deps: {
  databaseUrl: string;
  authenticator: Pick<Authenticator, 'forget' | 'forgetAll'>;
  logger: Logger;
}): Promise<ListenConnection> {
  const { authenticator } = deps;
  let connectedBefore = false;
  return startListenConnection({
    url: deps.databaseUrl,
    channel: keyChangedChannel,
    onNotification: (keyId) => {
      if (keyId) authenticator.forget(keyId);
      else authenticator.forgetAll();
    },
    onConnected: () => {
      if (connectedBefore) authenticator.forgetAll();
      connectedBefore = true;
    },
    logger: deps.logger,
    name: 'API key changes',
  });
}
