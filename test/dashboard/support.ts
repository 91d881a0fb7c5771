import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DashboardAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected freely
  body: any;
  headers: Headers;
}

export interface CallOptions {
  /** Send the session's CSRF token (default true once there is one). */
  csrf?: boolean | string;
  headers?: Record<string, string>;
}

/**
 * A browser-like client of the dashboard API over real HTTP: it keeps the session cookie the server
 * sets, and the CSRF token of the last `Session` answer.
 */
export function dashboardClient(baseUrl: string) {
  let cookie: string | undefined;
  let csrfToken: string | undefined;

  function keepCookie(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const match = /^blockyard_session=([^;]*)/.exec(line);
      if (match) cookie = match[1] ? `blockyard_session=${match[1]}` : undefined;
    }
  }

  async function call(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<DashboardAnswer> {
    const csrf = options.csrf ?? true;
    const headers: Record<string, string> = {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(cookie ? { cookie } : {}),
      ...(typeof csrf === 'string' ? { 'x-csrf-token': csrf } : csrf && csrfToken ? { 'x-csrf-token': csrfToken } : {}),
      ...options.headers,
    };
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    keepCookie(response.headers);
    const text = await response.text();
    const parsed = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
    if (parsed && typeof parsed.csrf_token === 'string') csrfToken = parsed.csrf_token;
    return { status: response.status, body: parsed, headers: response.headers };
  }

  return {
    call,
    api: (method: string, path: string, body?: unknown, options?: CallOptions) =>
      call(method, `/dashboard/api${path}`, body, options),
    get cookie() {
      return cookie;
    },
    get csrfToken() {
      return csrfToken;
    },
    forgetCsrf() {
      csrfToken = undefined;
    },
  };
}

export type DashboardClient = ReturnType<typeof dashboardClient>;

/** A new client signed up with a new account (open sign-up). */
export async function signedUpClient(baseUrl: string, email: string, password = 'correct horse battery') {
  const client = dashboardClient(baseUrl);
  const answer = await client.api('POST', '/signup', { email, password, account_name: `${email}'s account` });
  if (answer.status !== 201) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { client, session: answer.body };
}

/** The text of a quoted-printable message, as a mail client shows it. */
function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Waits for an .eml in the outbox whose text contains `needle`, and returns the text (decoded). */
export async function waitForMail(outboxDir: string, needle: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    let names: string[] = [];
    try {
      names = readdirSync(outboxDir).filter((name) => name.endsWith('.eml'));
    } catch {}
    for (const name of names) {
      const text = decodeQuotedPrintable(readFileSync(join(outboxDir, name), 'utf8'));
      if (text.includes(needle)) return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail containing ${needle} in ${outboxDir}`);
}
