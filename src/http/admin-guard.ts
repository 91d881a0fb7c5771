import { adminTokenMatches } from '../auth/admin-token.ts';
import { unauthorized } from '../core/errors.ts';
import type { RequestGuard } from './server.ts';

/** `Authorization: Bearer <admin token>` on every /admin request. */
export function createAdminGuard(adminToken: string): RequestGuard {
  return async (request) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('missing admin token: send Authorization: Bearer <admin token>');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !adminTokenMatches(match[1]!, adminToken)) throw unauthorized('invalid admin token');
  };
}
