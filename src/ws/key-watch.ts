import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.ts';
import { jwtFromRequest } from '../auth/extract-key.ts';
import { assertNetworkAccess, assertScope, type Principal } from '../auth/principal.ts';
import type { RequestFacts, RequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import type { Network } from '../chains/registry.ts';
import { isAppError } from '../core/errors.ts';
import { wsCloseCodes } from './close-codes.ts';

/** An open socket as the key watch sees it: the key it was opened with, and how to act on a change. */
export interface WatchedSocket {
  /** The API key presented on the upgrade. */
  readonly key: string;
  /** The upgrade's headers and client address: the key's origins, addresses and signed request. */
  readonly request: RequestFacts;
  readonly network: Network;
  principal: Principal;
  /** The key as it is now: its restrictions, scopes and limits apply from the next message. */
  update(principal: Principal): void;
  /**
   * The key changed and is being read again: messages that come meanwhile wait for `reread`, so the
   * first message after the change (the admin API answers once this process forgot the key) is
   * checked with the key as it is now, not served with the key as it was.
   */
  hold(reread: Promise<void>): void;
  end(code: number, reason: string): void;
}

export interface KeyWatch {
  /** Watches a socket until the returned function is called (on close). */
  watch(socket: WatchedSocket): () => void;
  close(): void;
}

/** setTimeout's longest delay (about 24.8 days); a later deadline is armed again when it fires. */
const maxTimerMs = 2 ** 31 - 1;

/**
 * Key changes reach open sockets: when a key is forgotten (revoked, rotated, restricted, its account's
 * plan or limits changed: in this process or, through LISTEN, in another), each of its sockets reads
 * it again and is closed (4001 refused, 4003 no longer allowed here) or carries on with the key as it
 * is now. A socket also ends when its presented secret stops working (a rotated-out secret's grace
 * ends) or when the signed request (JWT) it was opened with expires.
 */
export function createKeyWatch(deps: {
  authenticator: Pick<Authenticator, 'authenticate' | 'onForget'>;
  restrictions: RequestRestrictions;
  logger: Logger;
  now?: () => number;
}): KeyWatch {
  const now = deps.now ?? Date.now;
  const sockets = new Map<WatchedSocket, { timer?: NodeJS.Timeout }>();

  const arm = (socket: WatchedSocket) => {
    const entry = sockets.get(socket);
    if (!entry) return;
    clearTimeout(entry.timer);
    const deadline = deadlineOf(socket);
    if (deadline === undefined) return;
    // A deadline already past that the key still passed (clocks a second apart): looked at again in a second, not in a loop.
    const delay = deadline > now() ? deadline - now() : 1_000;
    entry.timer = setTimeout(() => void recheck(socket), Math.min(maxTimerMs, delay)).unref();
  };

  async function recheck(socket: WatchedSocket): Promise<void> {
    if (!sockets.has(socket)) return;
    try {
      const principal = await deps.authenticator.authenticate(socket.key);
      await deps.restrictions.check(principal, { ...socket.request, recheck: true });
      assertNetworkAccess(principal, socket.network.config);
      assertScope(principal, 'rpc:read');
      if (!sockets.has(socket)) return;
      socket.principal = principal;
      socket.update(principal);
      arm(socket);
    } catch (error) {
      if (!isAppError(error) || error.status >= 500) {
        // The key could not be read (the database is down): the socket goes on, and the next change reads it again.
        deps.logger.warn({ err: error, keyId: socket.principal.keyId }, 'an open WebSocket could not check its changed key');
        return;
      }
      const code = error.status === 401 ? wsCloseCodes.keyRefused : wsCloseCodes.keyNotAllowed;
      socket.end(code, closeReason(error.message));
    }
  }

  const stopListening = deps.authenticator.onForget((keyId) => {
    for (const socket of sockets.keys()) {
      if (keyId === undefined || socket.principal.keyId === keyId) socket.hold(recheck(socket));
    }
  });

  return {
    watch(socket) {
      sockets.set(socket, {});
      arm(socket);
      return () => {
        clearTimeout(sockets.get(socket)?.timer);
        sockets.delete(socket);
      };
    },
    close() {
      stopListening();
      for (const entry of sockets.values()) clearTimeout(entry.timer);
      sockets.clear();
    },
  };
}

/** When the socket must be checked again by the clock: its secret's end of grace, its JWT's exp. */
function deadlineOf(socket: WatchedSocket): number | undefined {
  const times: number[] = [];
  if (socket.principal.validUntil) times.push(socket.principal.validUntil.getTime());
  const jwt = socket.principal.restrictions?.jwt ? jwtFromRequest(socket.request.headers) : undefined;
  if (jwt) {
    try {
      const { exp } = decodeJwt(jwt);
      if (typeof exp === 'number') times.push(exp * 1000);
    } catch {
      // Verified on the upgrade: a token that does not decode was not accepted.
    }
  }
  return times.length === 0 ? undefined : Math.min(...times);
}

/** A close frame's reason is at most 123 bytes. */
function closeReason(message: string): string {
  const buffer = Buffer.from(message);
  return buffer.length <= 123
    ? message
    : `${buffer
        .subarray(0, 120)
        .toString('utf8')
        .replace(/\uFFFD+$/, '')}...`;
}
