import { signInLinkTtlMs } from './sign-in-link.ts';
import type { UserStore } from './user-store.ts';
import type { UserTokenStore } from './user-token-store.ts';

export const devUserEmail = 'dev@blockyard.local';

/**
 * Development mode: the dev user (an operator, owner of the dev key's account, made on first start)
 * and a new one-time sign-in token for the banner's link.
 */
export async function ensureDevUser(deps: { users: UserStore; userTokens: UserTokenStore; accountId: string }): Promise<string> {
  const user =
    (await deps.users.insert({ email: devUserEmail, passwordHash: null, operator: true })) ??
    (await deps.users.findByEmail(devUserEmail))!;
  await deps.users.addMember(deps.accountId, user.id, 'owner');
  return deps.userTokens.create(user.id, 'sign_in', signInLinkTtlMs);
}
