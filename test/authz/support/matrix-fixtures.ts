import { scopes } from '../../../src/auth/scopes.ts';
import { installErc4337Contracts } from '../../../src/erc4337/contracts/install.ts';
import type { KeyRestrictions } from '../../../src/keys/key-settings.ts';
import { type DashboardClient, signedUpClient } from '../../dashboard/support.ts';
import { withBundler } from '../../fuzz/support/bundler-service.ts';
import { type OpenApiDocument, type Operation, operationsOf } from '../../fuzz/support/operations.ts';
import { restrictKey } from '../../support/key-restrictions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

export const anvilAccount = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** One account's resources, made through its dashboard session. */
export interface AccountFixtures {
  readonly session: DashboardClient;
  readonly accountId: string;
  readonly userId: string;
  /** Path parameter values naming this account's resources, by parameter name and path prefix. */
  readonly webhookId: string;
  readonly deliveryId: string;
  readonly policyId: string;
  readonly walletAddress: string;
  readonly keyId: string;
  readonly invitationId: string;
}

export interface Matrix {
  readonly t: TestService;
  readonly operations: Operation[];
  readonly alice: AccountFixtures;
  readonly mallory: AccountFixtures;
  /** Keys of alice's account holding exactly one scope each. */
  readonly singleScopeKeys: Record<string, string>;
  /** A key of alice's account with every scope. */
  readonly aliceKey: string;
  /** A key of mallory's account with every scope. */
  readonly malloryKey: string;
  readonly revokedKey: string;
  /** A key of alice's account whose `contracts` list holds only `anvilAccount`. */
  readonly contractsKey: string;
  /** A new key of alice's account (test environment unless told), with these restrictions. */
  newKey(options?: { environment?: 'test' | 'live'; restrictions?: KeyRestrictions }): Promise<{ key: string; id: string }>;
}

async function ok(answer: Promise<{ status: number; body: unknown }>, what: string) {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  // biome-ignore lint/suspicious/noExplicitAny: fixture answers are read freely
  return body as any;
}

/** The service, two signed-up accounts (alice, mallory) with a resource of every kind, and alice's keys. */
export async function startMatrix(): Promise<Matrix> {
  const t = await startTestService(withBundler);
  await installErc4337Contracts(t.anvil.url);
  const unlimited = { rps: null, rpd: null, cups: null, webhook_deliveries_per_day: null };
  const unlimit = (accountId: string) =>
    ok(t.admin('PATCH', `/admin/accounts/${accountId}`, { plan: 'enterprise', limits: unlimited }), 'limits');
  const keyFor = async (accountId: string, keyScopes?: string[]) =>
    (
      await ok(
        t.admin('POST', `/admin/accounts/${accountId}/keys`, {
          name: 'm',
          environment: 'test',
          ...(keyScopes ? { scopes: keyScopes } : {}),
        }),
        'key',
      )
    ).key as string;
  // Sign-up makes each account; its keys are the admin API's, with the scopes asked for.
  const aliceSignedUp = await signedUpClient(t, 'alice@example.com');
  await unlimit(aliceSignedUp.session.account.id);
  const aliceKey = await keyFor(aliceSignedUp.session.account.id);
  const mallorySignedUp = await signedUpClient(t, 'mallory@example.com');
  await unlimit(mallorySignedUp.session.account.id);
  const malloryKey = await keyFor(mallorySignedUp.session.account.id);
  const alice = await accountWithResources(t, aliceSignedUp, aliceKey);
  const mallory = await accountWithResources(t, mallorySignedUp, malloryKey);
  const singleScopeKeys: Record<string, string> = {};
  for (const scope of scopes) singleScopeKeys[scope] = await keyFor(alice.accountId, [scope]);
  const newKey: Matrix['newKey'] = async ({ environment = 'test', restrictions } = {}) => {
    const created = await ok(t.admin('POST', `/admin/accounts/${alice.accountId}/keys`, { name: 'm', environment }), 'key');
    if (restrictions) await restrictKey(t, created.id, restrictions);
    return { key: created.key, id: created.id };
  };
  const revoked = await newKey();
  await ok(t.admin('DELETE', `/admin/keys/${revoked.id}`), 'revoke');
  const contracts = await newKey({ restrictions: { contracts: [anvilAccount] } });
  const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument;
  return {
    t,
    operations: operationsOf(doc),
    alice,
    mallory,
    singleScopeKeys,
    aliceKey,
    malloryKey,
    revokedKey: revoked.key,
    contractsKey: contracts.key,
    newKey,
  };
}

type SignedUp = Awaited<ReturnType<typeof signedUpClient>>;

/** A resource of every kind for a signed-up account: through its session, the wallet through its key. */
async function accountWithResources(t: TestService, signedUp: SignedUp, key: string): Promise<AccountFixtures> {
  const { client: session, session: view } = signedUp;
  const response = await fetch(`${t.url}/v1/wallets/create`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ owner: anvilAccount, chain: 'ethereum', salt: String(view.user.email.length) }),
    signal: AbortSignal.timeout(10_000),
  });
  const wallet = await ok(
    response.json().then((body) => ({ status: response.status, body })),
    'wallet',
  );
  const webhook = await ok(
    session.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', chain: 'ethereum', event_type: 'new_block' }),
    'webhook',
  );
  await ok(session.api('POST', `/v1/webhooks/${webhook.id}/test`), 'test event');
  const deliveries = await ok(session.api('GET', `/v1/webhooks/${webhook.id}/deliveries`), 'deliveries');
  const policy = await ok(session.api('POST', '/v1/gas/policies', { name: 'p', chain: 'ethereum', rules: {} }), 'policy');
  const extraKey = await ok(session.api('POST', '/keys', { name: 'k', environment: 'test' }), 'key');
  const invitation = await ok(
    session.api('POST', '/invitations', { email: `invited-${view.user.email}`, role: 'member' }),
    'invitation',
  );
  return {
    session,
    accountId: view.account.id,
    userId: view.user.id,
    webhookId: webhook.id,
    deliveryId: deliveries.deliveries[0].id,
    policyId: policy.id,
    walletAddress: wallet.address,
    keyId: extraKey.id,
    invitationId: invitation.id,
  };
}

/**
 * Fills a path template with `owner`'s resources: `{id}` is the webhook, policy, key or invitation the
 * path is about. `given`: values that replace these (`{ contract: … }`).
 */
export function pathFor(template: string, owner: AccountFixtures, given: Record<string, string> = {}): string {
  const idOf = (path: string) =>
    path.includes('/webhooks')
      ? owner.webhookId
      : path.includes('/policies')
        ? owner.policyId
        : path.includes('/invitations')
          ? owner.invitationId
          : path.includes('/keys')
            ? owner.keyId
            : owner.accountId;
  const values: Record<string, string> = {
    chain: 'ethereum',
    network: 'devnet',
    id: idOf(template),
    delivery_id: owner.deliveryId,
    address: owner.walletAddress,
    contract: anvilAccount,
    token_id: '1',
    user_id: owner.userId,
    ...given,
  };
  return template.replace(/\{(\w+)\}|:(\w+)/g, (_, a: string | undefined, b: string | undefined) => values[(a ?? b)!] ?? 'x');
}

/** An operation names a resource of the account when a path parameter is an id (or, for wallets, the address). */
export function namesAccountResource(operation: Pick<Operation, 'path'>): boolean {
  return (
    /\{(id|delivery_id|user_id)\}|:(id|user_id)\b/.test(operation.path) ||
    /^(\/dashboard\/api)?\/v1\/wallets\/\{address\}/.test(operation.path)
  );
}
