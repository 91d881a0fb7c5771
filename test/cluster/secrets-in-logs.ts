import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An API key past the 13 characters logs may show (`svc_test_` and 4): the rest of it leaked. */
const fullApiKey = /svc_(?:test|live)_[A-Za-z0-9]{5,}/;

/**
 * Secrets never logged (the guide's rule), checked on every log the run kept: haproxy's access log,
 * each node's, the load's. `known` are the run's own secrets (admin token, keys), each looked for as is.
 */
export function secretsInLogs(runDir: string, known: readonly string[]): string[] {
  const found: string[] = [];
  for (const name of readdirSync(runDir).filter((file) => file.endsWith('.log'))) {
    // The load's own log is the client's side: it may print what it was given.
    if (name === 'load.log') continue;
    const text = readFileSync(join(runDir, name), 'utf8');
    const key = fullApiKey.exec(text);
    if (key) found.push(`${name}: an API key past its prefix (${key[0].slice(0, 13)}…)`);
    for (const secret of known) if (text.includes(secret)) found.push(`${name}: a secret of the run (${secret.slice(0, 6)}…)`);
  }
  return found;
}
