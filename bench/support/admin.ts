/**
 * Creates an enterprise account (no rps, rpd or compute-unit limits) and a test key through the admin
 * API; `keyFields` go into the key's create body (e.g. `restrictions`). Each call makes its own account
 * (a tenant of its own), named `accountName`.
 */
export async function createBenchKey(
  baseUrl: string,
  adminToken: string,
  keyFields: Record<string, unknown> = {},
  accountName = 'bench',
): Promise<string> {
  const account = await admin(baseUrl, adminToken, '/admin/accounts', { name: accountName, plan: 'enterprise' });
  const created = await admin(baseUrl, adminToken, `/admin/accounts/${String(account.id)}/keys`, {
    name: 'bench',
    environment: 'test',
    ...keyFields,
  });
  if (typeof created.key !== 'string') throw new Error('the admin API returned no key');
  return created.key;
}

async function admin(baseUrl: string, token: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
