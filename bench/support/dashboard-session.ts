// A real user of the dashboard for bench:dashboard: signed up through the API the sign-up page calls,
// with an API key and a few calls on it, so /keys and /usage have something to show.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DashboardUser {
  /** The session cookie (`blockyard_session`), as the browser keeps it. */
  cookie: { name: string; value: string };
}

const requestTimeoutMs = 10_000;

/** The verification token of the sign-up mail in the service's .eml outbox (no SMTP server in the bench). */
async function mailedToken(outboxDir: string): Promise<string> {
  for (const deadline = Date.now() + requestTimeoutMs; Date.now() < deadline; ) {
    const names = existsSync(outboxDir) ? readdirSync(outboxDir).filter((name) => name.endsWith('.eml')) : [];
    for (const name of names) {
      // Quoted-printable: soft line breaks and `=3D` for `=`.
      const text = readFileSync(join(outboxDir, name), 'utf8')
        .replace(/=\r?\n/g, '')
        .replaceAll('=3D', '=');
      const token = /\/verify-email\?token=(\w+)/.exec(text)?.[1];
      if (token) return token;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no sign-up mail in ${outboxDir}`);
}

/** Signs up through the API the sign-up page calls, then confirms the mailed link as its landing page does. */
export async function signUpBenchUser(baseUrl: string, dataDir: string): Promise<DashboardUser> {
  const signup = await fetch(`${baseUrl}/dashboard/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'a long enough password', account_name: 'Bench' }),
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  if (signup.status !== 202) throw new Error(`sign-up answered ${signup.status}: ${await signup.text()}`);
  const verified = await fetch(`${baseUrl}/dashboard/api/signup/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: await mailedToken(join(dataDir, 'outbox')) }),
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  const session = (await verified.json()) as { csrf_token?: string };
  if (verified.status !== 200 || !session.csrf_token)
    throw new Error(`confirming the sign-up answered ${verified.status}: ${JSON.stringify(session)}`);
  const cookie = /^(blockyard_session)=([^;]+)/.exec(
    verified.headers.getSetCookie().find((line) => line.startsWith('blockyard_session=')) ?? '',
  );
  if (!cookie) throw new Error('confirming the sign-up set no blockyard_session cookie');
  const user = { cookie: { name: cookie[1]!, value: cookie[2]! } };

  const created = await fetch(`${baseUrl}/dashboard/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `${cookie[1]}=${cookie[2]}`, 'x-csrf-token': session.csrf_token },
    body: JSON.stringify({ name: 'backend', environment: 'test', scopes: ['rpc:read'] }),
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  const key = (await created.json()) as { key?: string };
  if (created.status !== 201 || !key.key) throw new Error(`creating a key answered ${created.status}: ${JSON.stringify(key)}`);
  for (const method of ['eth_blockNumber', 'eth_chainId', 'eth_blockNumber']) {
    const answer = await fetch(`${baseUrl}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    await answer.text();
    if (answer.status !== 200) throw new Error(`${method} with the new key answered ${answer.status}`);
  }
  return user;
}
