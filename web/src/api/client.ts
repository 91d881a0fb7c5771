// The typed client of docs/dashboard-api.md: one function per endpoint, every call same-origin with the
// session cookie, every state change with the session's CSRF token.
import type { Scope } from '../../../src/auth/scopes.ts';
import type {
  Account,
  ApiKey,
  ChainInfo,
  CreatedApiKey,
  CreatedInvitation,
  Delivery,
  DeliveryStatus,
  Environment,
  GasPolicy,
  Granularity,
  Invitation,
  KeyEvent,
  KeyLimits,
  KeyRestrictions,
  Limits,
  Member,
  Plan,
  PolicyUsage,
  Role,
  Session,
  Usage,
  UsageGroupBy,
  VerificationSent,
  Wallet,
  WalletListItem,
  Webhook,
  WebhookListItem,
  WebhookStatus,
} from './types.ts';

const base = '/dashboard/api';

/**
 * An error answer of the API (`{error: {code, message}}`), or a network failure (`code` `network_error`,
 * `status` 0). `param` is the parameter a 400 names (`config.addresses[2]`), when it names one.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly param: string | undefined;

  constructor(code: string, message: string, status: number, param?: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.param = param;
  }
}

/**
 * The parameter an error message names, as the service writes them: `invalid parameter 'rules.max_ops': ...`,
 * `missing required body 'name'`, `unknown body 'x'`, `invalid query parameter 'from': ...`.
 * @example paramOf("invalid parameter 'config.addresses[2]': must be ...") // 'config.addresses[2]'
 */
export function paramOf(message: string): string | undefined {
  const match = /^(?:invalid|missing required|unknown) [a-z ]*?'([^']+)'/.exec(message);
  // `config.addresses or config.from` (one of several is needed): the first.
  return match?.[1]?.split(' or ')[0];
}

let csrfToken: string | undefined;
/** Set from every Session answer: sent as `x-csrf-token` on each state change. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

type Query = Record<string, string | number | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** How long an early answer waits for the page that reads it; later the page asks again. */
const earlyReadLifeMs = 5_000;
/** GET answers asked for before their page is drawn (beside the session call of a cold load), by URL. */
const earlyReads = new Map<string, { answer: Promise<unknown>; askedAt: number }>();
let readingEarly = false;

/**
 * Runs `reads` (calls of this client): each GET they make is kept, and the first later call of the same
 * URL gets its answer instead of asking again. A page's first data thus comes beside the session call.
 */
export function readEarly(reads: () => void): void {
  readingEarly = true;
  try {
    reads();
  } finally {
    readingEarly = false;
  }
}

/** Drops the early answers not taken yet: asked for a session that turned out to be none, or before a change. */
export function forgetEarlyReads(): void {
  earlyReads.clear();
}

function call<T>(method: string, path: string, options: { body?: unknown; query?: Query } = {}): Promise<T> {
  if (method !== 'GET') {
    // A change (a sign-in, another account) may change what the early answers would have said.
    forgetEarlyReads();
    return send<T>(method, path, options);
  }
  const url = withQuery(path, options.query);
  if (readingEarly) {
    const answer = send<T>(method, path, options);
    // Kept for a later call, which sees any failure; never an unhandled rejection meanwhile.
    answer.catch(() => undefined);
    earlyReads.set(url, { answer, askedAt: Date.now() });
    return answer;
  }
  const early = earlyReads.get(url);
  earlyReads.delete(url);
  if (early && Date.now() - early.askedAt < earlyReadLifeMs) return early.answer as Promise<T>;
  return send<T>(method, path, options);
}

async function send<T>(method: string, path: string, options: { body?: unknown; query?: Query }): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(withQuery(`${base}${path}`, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError('network_error', 'The service could not be reached. Check your connection and try again.', 0);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    const message = error?.message ?? `The service answered ${response.status} ${response.statusText}`.trim();
    throw new ApiError(error?.code ?? 'http_error', message, response.status, paramOf(message));
  }
  return parsed as T;
}

const id = (value: string) => encodeURIComponent(value);

// --- session and people ------------------------------------------------------------------------

export const getSession = () => call<Session>('GET', '/session');
export const signIn = (body: { email: string; password: string }) => call<Session>('POST', '/session', { body });
export const signOut = () => call<void>('DELETE', '/session');
export const switchAccount = (accountId: string) => call<Session>('PUT', '/session/account', { body: { account_id: accountId } });
export const signUp = (body: { email: string; password: string; account_name?: string; invitation?: string }) =>
  call<VerificationSent>('POST', '/signup', { body });
export const verifyEmail = (token: string) => call<Session>('POST', '/signup/verify', { body: { token } });
export const requestPasswordReset = (email: string) => call<void>('POST', '/password-reset', { body: { email } });
export const confirmPasswordReset = (body: { token: string; password: string }) =>
  call<Session>('POST', '/password-reset/confirm', { body });

export const listMembers = () => call<{ members: Member[] }>('GET', '/members');
export const removeMember = (userId: string) => call<void>('DELETE', `/members/${id(userId)}`);
export const listInvitations = () => call<{ invitations: Invitation[] }>('GET', '/invitations');
export const createInvitation = (body: { email: string; role: Role }) =>
  call<CreatedInvitation>('POST', '/invitations', { body });
export const revokeInvitation = (invitationId: string) => call<void>('DELETE', `/invitations/${id(invitationId)}`);
export const acceptInvitation = (token: string) => call<VerificationSent>('POST', '/invitations/accept', { body: { token } });

// --- keys ---------------------------------------------------------------------------------------

export const listKeys = () => call<{ keys: ApiKey[] }>('GET', '/keys');
export const createKey = (body: { name: string; environment: Environment; scopes?: Scope[] }) =>
  call<CreatedApiKey>('POST', '/keys', { body });
export const revokeKey = (keyId: string) => call<ApiKey>('DELETE', `/keys/${id(keyId)}`);
export const updateKey = (
  keyId: string,
  body: { name?: string; scopes?: Scope[]; restrictions?: KeyRestrictions; limits?: KeyLimits | Record<string, unknown> },
) => call<ApiKey>('PATCH', `/keys/${id(keyId)}`, { body });
export const rotateKey = (keyId: string, body: { grace_s: number }) =>
  call<CreatedApiKey>('POST', `/keys/${id(keyId)}/rotate`, { body });
export const listKeyEvents = (keyId: string, query: { page?: number; limit?: number } = {}) =>
  call<{ events: KeyEvent[]; total: number; page?: number }>('GET', `/keys/${id(keyId)}/events`, { query });

// --- usage and chains ------------------------------------------------------------------------------

export const getUsage = (query: { from?: string; to?: string; granularity?: Granularity; group_by?: UsageGroupBy }) =>
  call<Usage>('GET', '/v1/usage', { query });
export const getChains = () => call<{ networks: ChainInfo[] }>('GET', '/chains');

// --- webhooks -----------------------------------------------------------------------------------

export interface CreateWebhookBody {
  url: string;
  chain: string;
  network?: string;
  event_type: string;
  config?: Record<string, unknown>;
  payload_format?: 'snake_case' | 'camelCase';
}
export const listWebhooks = (query: { page?: number; limit?: number; status?: WebhookStatus } = {}) =>
  call<{ webhooks: WebhookListItem[]; page: number; total: number }>('GET', '/v1/webhooks', { query });
export const createWebhook = (body: CreateWebhookBody) => call<Webhook>('POST', '/v1/webhooks', { body });
export const getWebhook = (webhookId: string) => call<Webhook>('GET', `/v1/webhooks/${id(webhookId)}`);
export const updateWebhook = (
  webhookId: string,
  body: { url?: string; status?: 'active' | 'paused'; config?: Record<string, unknown> },
) => call<Webhook>('PATCH', `/v1/webhooks/${id(webhookId)}`, { body });
export const deleteWebhook = (webhookId: string) =>
  call<{ id: string; deleted: boolean }>('DELETE', `/v1/webhooks/${id(webhookId)}`);
export const listDeliveries = (webhookId: string, query: { page?: number; limit?: number; status?: DeliveryStatus } = {}) =>
  call<{ deliveries: Delivery[]; page: number; total: number }>('GET', `/v1/webhooks/${id(webhookId)}/deliveries`, { query });
export const sendTestEvent = (webhookId: string) =>
  call<{ event_id: string; delivery_id: string }>('POST', `/v1/webhooks/${id(webhookId)}/test`);
export const redeliver = (webhookId: string, deliveryId: string) =>
  call<{ delivery_id: string; event_id: string }>('POST', `/v1/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/redeliver`);
export const replayWebhook = (webhookId: string, body: { from_block?: number; to_block?: number; since?: string }) =>
  call<{ id: string; from_block: number; to_block: number; queued: number }>('POST', `/v1/webhooks/${id(webhookId)}/replay`, {
    body,
  });
export const rotateWebhookSecret = (webhookId: string) => call<Webhook>('POST', `/v1/webhooks/${id(webhookId)}/rotate-secret`);

// --- smart wallets ----------------------------------------------------------------------------------

export const listWallets = (query: { page?: number; limit?: number; chain?: string } = {}) =>
  call<{ wallets: WalletListItem[]; page: number; total: number }>('GET', '/v1/wallets', { query });
export const getWallet = (address: string, query: { chain?: string; network?: string } = {}) =>
  call<Wallet>('GET', `/v1/wallets/${id(address)}`, { query });

// --- gas policies ---------------------------------------------------------------------------------

export const listPolicies = (query: { page?: number; limit?: number; chain?: string; status?: 'active' | 'paused' } = {}) =>
  call<{ policies: GasPolicy[]; page: number; total: number }>('GET', '/v1/gas/policies', { query });
export const createPolicy = (body: { name: string; chain: string; network?: string; rules: Record<string, unknown> }) =>
  call<GasPolicy>('POST', '/v1/gas/policies', { body });
export const getPolicy = (policyId: string) => call<GasPolicy>('GET', `/v1/gas/policies/${id(policyId)}`);
export const updatePolicy = (
  policyId: string,
  body: { name?: string; rules?: Record<string, unknown>; status?: 'active' | 'paused' },
) => call<GasPolicy>('PATCH', `/v1/gas/policies/${id(policyId)}`, { body });
export const deletePolicy = (policyId: string) =>
  call<{ id: string; deleted: boolean }>('DELETE', `/v1/gas/policies/${id(policyId)}`);
export const getPolicyUsage = (policyId: string) => call<PolicyUsage>('GET', `/v1/gas/policies/${id(policyId)}/usage`);

// --- operator ---------------------------------------------------------------------------------------

export const adminListAccounts = (query: { page?: number; limit?: number } = {}) =>
  call<{ accounts: Account[]; page: number; total: number }>('GET', '/admin/accounts', { query });
export const adminGetAccount = (accountId: string) => call<Account>('GET', `/admin/accounts/${id(accountId)}`);
export const adminUpdateAccount = (accountId: string, body: { plan?: Plan; limits?: Partial<Limits>; email?: string | null }) =>
  call<Account>('PATCH', `/admin/accounts/${id(accountId)}`, { body });
export const adminListWebhooks = (query: { page?: number; limit?: number; account_id?: string; status?: WebhookStatus } = {}) =>
  call<{ webhooks: (Webhook & { account_id: string })[]; page: number; total: number }>('GET', '/admin/webhooks', { query });
export const adminSetWebhookStatus = (webhookId: string, body: { status: WebhookStatus; reason?: string }) =>
  call<Webhook>('PATCH', `/admin/webhooks/${id(webhookId)}`, { body });
