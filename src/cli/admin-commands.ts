import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { adminTokenPath } from '../auth/admin-token.ts';
import { loadConfig } from '../config/load.ts';
import { type AdminResponse, sendAdminRequest } from './admin-request.ts';
import { configFlagOptions } from './flags.ts';
import { runIndexBackfill } from './index-backfill.ts';

const adminOptions = {
  ...configFlagOptions,
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  name: { type: 'string' },
  plan: { type: 'string' },
  rps: { type: 'string' },
  rpd: { type: 'string' },
  cups: { type: 'string' },
  account: { type: 'string' },
  env: { type: 'string' },
  scopes: { type: 'string' },
  email: { type: 'string' },
  status: { type: 'string' },
  reason: { type: 'string' },
  page: { type: 'string' },
  limit: { type: 'string' },
  grace: { type: 'string' },
  restrictions: { type: 'string' },
  limits: { type: 'string' },
  network: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  detach: { type: 'boolean' },
} as const;

interface AdminRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

/**
 * `blockyard accounts …`, `blockyard keys …` and `blockyard index status`: thin wrappers over the admin API of a running server
 * (the server owns its embedded database). They print the JSON answer.
 */
export async function runAdminCommand(
  group: 'accounts' | 'keys' | 'index' | 'webhooks' | 'users',
  args: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: adminOptions, strict: true, allowPositionals: true });
  const [action, target] = positionals;
  const { detach, ...settings } = values;
  const request = group === 'index' && action === 'backfill' ? undefined : buildRequest(group, action, target, settings);
  const config = loadConfig({ flags: settings });
  const base = values.url ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const token = values['admin-token'] ?? config.adminToken ?? readTokenFile(config.dataDir);
  if (!request) return reachServer(base, () => runIndexBackfill({ ...values, detach: detach === true }, { base, token }));

  const response: AdminResponse = await reachServer(base, () =>
    sendAdminRequest(new URL(request.path, base), {
      method: request.method,
      token,
      ...(request.body ? { body: JSON.stringify(request.body) } : {}),
      timeoutMs: 30_000,
    }),
  );
  (response.ok ? process.stdout : process.stderr).write(`${response.text}\n`);
  return response.ok ? 0 : 1;
}

async function reachServer<T>(base: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw error;
    throw new Error(`cannot reach the server at ${base} (${(error as Error).message}); is 'blockyard start' running?`);
  }
}

function buildRequest(
  group: string,
  action: string | undefined,
  target: string | undefined,
  values: Record<string, string | undefined>,
): AdminRequest {
  const query = new URLSearchParams();
  if (values.page) query.set('page', values.page);
  if (values.limit) query.set('limit', values.limit);
  const suffix = query.size > 0 ? `?${query}` : '';
  if (group === 'accounts' && action === 'create') {
    const limits: Record<string, number> = {};
    for (const name of ['rps', 'rpd', 'cups'] as const) {
      if (values[name] !== undefined) limits[name] = integer(values[name], `--${name}`);
    }
    return {
      method: 'POST',
      path: '/admin/accounts',
      body: {
        name: required(values.name, '--name'),
        plan: values.plan ?? 'free',
        ...(Object.keys(limits).length ? { limits } : {}),
        ...(values.email ? { email: values.email } : {}),
      },
    };
  }
  if (group === 'accounts' && action === 'set-email') {
    return {
      method: 'PATCH',
      path: `/admin/accounts/${encodeURIComponent(required(target, 'ACCOUNT_ID'))}`,
      body: { email: required(values.email, '--email') },
    };
  }
  if (group === 'webhooks' && action === 'list') {
    if (values.account) query.set('account_id', values.account);
    if (values.status) query.set('status', values.status);
    return { method: 'GET', path: `/admin/webhooks${query.size > 0 ? `?${query}` : ''}` };
  }
  if (group === 'webhooks' && (action === 'disable' || action === 'enable')) {
    return {
      method: 'PATCH',
      path: `/admin/webhooks/${encodeURIComponent(required(target, 'WEBHOOK_ID'))}`,
      body:
        action === 'disable' ? { status: 'disabled', ...(values.reason ? { reason: values.reason } : {}) } : { status: 'active' },
    };
  }
  if (group === 'accounts' && action === 'list') return { method: 'GET', path: `/admin/accounts${suffix}` };
  if (group === 'keys' && action === 'create') {
    const account = required(values.account, '--account');
    // `--scopes ''` sends an empty list, which the server refuses: only leaving the flag out means all seven.
    const scopes = values.scopes
      ?.split(',')
      .map((scope) => scope.trim())
      .filter((scope) => scope !== '');
    return {
      method: 'POST',
      path: `/admin/accounts/${encodeURIComponent(account)}/keys`,
      body: { name: values.name ?? 'cli', environment: values.env ?? 'test', ...(scopes ? { scopes } : {}) },
    };
  }
  if (group === 'keys' && action === 'list') {
    return { method: 'GET', path: `/admin/accounts/${encodeURIComponent(required(values.account, '--account'))}/keys${suffix}` };
  }
  if (group === 'users' && action === 'add-operator') {
    return { method: 'POST', path: '/admin/users', body: { email: required(target, 'EMAIL'), operator: true } };
  }
  if (group === 'users' && action === 'list') return { method: 'GET', path: `/admin/users${suffix}` };
  if (group === 'index' && action === 'status') return { method: 'GET', path: '/admin/index/status' };
  if (group === 'index' && action === 'backfills') {
    if (values.network) query.set('network', values.network);
    return { method: 'GET', path: `/admin/index/backfills${query.size > 0 ? `?${query}` : ''}` };
  }
  if (group === 'keys' && (action === 'update' || action === 'rotate' || action === 'events'))
    return keyChangeRequest(action, required(target, 'KEY_ID'), values, suffix);
  if (group === 'keys' && action === 'revoke')
    return { method: 'DELETE', path: `/admin/keys/${encodeURIComponent(required(target, 'KEY_ID'))}` };
  throw Object.assign(new Error(`unknown command '${group} ${action ?? ''}'; see 'blockyard help'`), {
    code: 'ERR_PARSE_ARGS_UNKNOWN',
  });
}

/** `keys update|rotate|events KEY_ID`: PATCH, rotate (with `--grace` seconds) and the audit trail of one key. */
function keyChangeRequest(
  action: 'update' | 'rotate' | 'events',
  keyId: string,
  values: Record<string, string | undefined>,
  suffix: string,
): AdminRequest {
  const path = `/admin/keys/${encodeURIComponent(keyId)}`;
  if (action === 'events') return { method: 'GET', path: `${path}/events${suffix}` };
  if (action === 'rotate')
    return { method: 'POST', path: `${path}/rotate`, body: values.grace ? { grace_s: integer(values.grace, '--grace') } : {} };
  const scopes = values.scopes?.split(',').map((scope) => scope.trim());
  return {
    method: 'PATCH',
    path,
    body: {
      ...(values.name ? { name: values.name } : {}),
      ...(scopes ? { scopes } : {}),
      ...(values.restrictions !== undefined ? { restrictions: jsonFlag(values.restrictions, '--restrictions') } : {}),
      ...(values.limits !== undefined ? { limits: jsonFlag(values.limits, '--limits') } : {}),
    },
  };
}

function jsonFlag(value: string, name: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw Object.assign(new Error(`${name} must be JSON, e.g. ${name} '{"origins":["https://app.example.com"]}'`), {
      code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
    });
  }
}

function required(value: string | undefined, name: string): string {
  if (!value) throw Object.assign(new Error(`${name} is required`), { code: 'ERR_PARSE_ARGS_MISSING' });
  return value;
}

function integer(value: string | undefined, name: string): number {
  if (!value || !/^\d+$/.test(value))
    throw Object.assign(new Error(`${name} must be a whole number`), { code: 'ERR_PARSE_ARGS_INVALID' });
  return Number(value);
}

function readTokenFile(dataDir: string): string {
  try {
    return readFileSync(adminTokenPath(dataDir), 'utf8').trim();
  } catch {
    throw new Error(`no admin token: set BLOCKYARD_ADMIN_TOKEN or --admin-token (none found at ${adminTokenPath(dataDir)})`);
  }
}
