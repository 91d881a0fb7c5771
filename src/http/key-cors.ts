import type { Authenticator } from '../auth/authenticator.ts';
import { apiKeyInPath } from '../auth/key-in-path.ts';
import type { Principal } from '../auth/principal.ts';
import { refusedByRestriction } from '../auth/restrictions/refusal.ts';
import type { RequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import type { HeaderSink } from './charge.ts';
import { preflightFor, responseHeadersFor } from './cors.ts';

/**
 * CORS for the URL form of a key (`/v1/{rpc|bundler|ws}/{chain}/{network}/{apiKey}`): a browser's
 * preflight carries no key header, but this form has the key in the path, so the preflight and the
 * response headers follow that key's `restrictions.origins`. Keys without origins, header keys, and a
 * path whose key is unknown or bad follow the server-wide `cors_origins` (src/http/cors.ts).
 */
export interface KeyCors {
  /**
   * The 204's headers for a preflight to `url` from `origin` when the path's key lists origins
   * (`forbidden` when it does not list this one); undefined: the server-wide policy decides.
   */
  preflightHeaders(url: string, origin: string): Promise<Readonly<Record<string, string>> | undefined>;
}

export function createKeyCors(deps: { authenticator: Authenticator; restrictions: RequestRestrictions }): KeyCors {
  return {
    async preflightHeaders(url, origin) {
      const key = apiKeyInPath(url);
      if (key === undefined) return undefined;
      let principal: Principal;
      try {
        principal = await deps.authenticator.authenticate(key);
      } catch {
        return undefined;
      }
      const origins = deps.restrictions.originsOf(principal);
      if (origins === undefined) return undefined;
      if (!origins.allows(origin)) throw refusedByRestriction('origins', `the origin '${origin}' is not listed`);
      return preflightFor(origin, true);
    },
  };
}

/** On a URL-form request the key's restrictions let through: its origin is echoed when the key lists origins. */
export function addKeyCorsHeaders(
  restrictions: RequestRestrictions,
  principal: Principal,
  origin: string | undefined,
  reply: HeaderSink,
): void {
  if (origin === undefined) return;
  const origins = restrictions.originsOf(principal);
  if (origins?.allows(origin)) reply.headers(responseHeadersFor(origin));
}
