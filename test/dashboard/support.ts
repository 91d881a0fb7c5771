import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, type Headers, fetch as undiciFetch } from 'undici';

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
 * sets, and the CSRF token of the last `Session` answer. `from` is the loopback address it connects
 * from (e.g. `127.0.0.2`): the client address the service sees, for the per-address limits.
 */
export function dashboardClient(baseUrl: string, options: { from?: string } = {}) {
  let cookie: string | undefined;
  let csrfToken: string | undefined;
  const dispatcher = options.from ? new Agent({ localAddress: options.from }) : undefined;

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
    const response = await undiciFetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
      dispatcher,
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

/** Where a test service writes its mails (no SMTP server configured). */
export interface MailingService {
  url: string;
  dataDir: string;
}

const readLinks = new Set<string>();

/**
 * The token of the newest verification link mailed to `email` that no earlier call returned (the
 * sign-up's, or an invitation acceptance's), from the service's .eml outbox.
 */
export async function mailedVerificationToken(service: MailingService, email: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await waitForMail(join(service.dataDir, 'outbox'), `To: ${email.toLowerCase()}`, deadline - Date.now(), (mail) =>
      [...mail.matchAll(/\/verify-email\?token=(\w+)/g)].some((match) => !readLinks.has(match[1]!)),
    );
    const token = [...text.matchAll(/\/verify-email\?token=(\w+)/g)].map((match) => match[1]!).find((t) => !readLinks.has(t));
    if (token) {
      readLinks.add(token);
      return token;
    }
  }
  throw new Error(`no new verification link mailed to ${email}`);
}

/** A new client signed up with a new account (open sign-up), through the mailed verification link. */
export async function signedUpClient(
  service: MailingService,
  email: string,
  password = 'correct horse battery',
  body: Record<string, unknown> = { account_name: `${email}'s account` },
) {
  const client = dashboardClient(service.url);
  const answer = await client.api('POST', '/signup', { email, password, ...body });
  if (answer.status !== 202) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  const token = await mailedVerificationToken(service, email);
  const verified = await client.api('POST', '/signup/verify', { token });
  if (verified.status !== 200) throw new Error(`verification failed: ${verified.status} ${JSON.stringify(verified.body)}`);
  return { client, session: verified.body };
}

/** The text of a quoted-printable message, as a mail client shows it. */
function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Waits for an .eml in the outbox whose text contains `needle` (and passes `accept`), and returns the text (decoded). */
export async function waitForMail(
  outboxDir: string,
  needle: string,
  timeoutMs = 5000,
  accept: (text: string) => boolean = () => true,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    let names: string[] = [];
    try {
      names = readdirSync(outboxDir).filter((name) => name.endsWith('.eml'));
    } catch {}
    for (const name of names) {
      const text = decodeQuotedPrintable(readFileSync(join(outboxDir, name), 'utf8'));
      if (text.includes(needle) && accept(text)) return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail containing ${needle} in ${outboxDir}`);
}
