import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from '../support/closed-port.ts';

/** One alert as `/api/v1/alerts` lists it. */
export interface LiveAlert {
  readonly labels: Record<string, string>;
  readonly state: 'pending' | 'firing';
}

export interface LivePrometheus {
  /** Evaluates a PromQL expression now (or at `atMs`): its series, or throws with Prometheus's error. */
  query(expr: string, atMs?: number): Promise<unknown[]>;
  /** The alerts pending or firing now (empty without rule files). */
  alerts(): Promise<LiveAlert[]>;
  stop(): Promise<void>;
}

/** A node to scrape: `host:port`, and the `instance` label its series get (default: the address). */
export interface ScrapeTarget {
  readonly address: string;
  readonly instance?: string;
}

export interface PrometheusOptions {
  /** Rule files to load (`rule_files:`), evaluated every second. */
  readonly ruleFiles?: readonly string[];
  /** Where its configuration and data go (default: a temporary directory removed at stop). */
  readonly dir?: string;
  /** Where it logs (default: nowhere). */
  readonly logFile?: string;
}

function configText(targets: readonly ScrapeTarget[], bearer: string, ruleFiles: readonly string[]): string {
  const staticConfigs = targets.map(
    (target) =>
      `      - { targets: ["${target.address}"]${target.instance ? `, labels: { instance: "${target.instance}" }` : ''} }`,
  );
  return [
    'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
    ...(ruleFiles.length ? ['rule_files:', ...ruleFiles.map((file) => `  - "${file}"`)] : []),
    'scrape_configs:',
    '  - job_name: blockyard',
    `    authorization: { credentials: "${bearer}" }`,
    '    static_configs:',
    ...staticConfigs,
    '',
  ].join('\n');
}

/**
 * Debian's Prometheus on 127.0.0.1, scraping `targets` (host:port, job "blockyard", with the admin
 * token) every second, evaluating `ruleFiles` every second; its data in a temporary directory removed at stop.
 */
export async function startPrometheus(
  targets: string | readonly ScrapeTarget[],
  bearer: string,
  options: PrometheusOptions = {},
): Promise<LivePrometheus> {
  const list = typeof targets === 'string' ? [{ address: targets }] : targets;
  const dir = mkdtempSync(join(options.dir ?? tmpdir(), 'blockyard-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, configText(list, bearer, options.ruleFiles ?? []));
  const port = await closedPort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: options.logFile ? ['ignore', 'ignore', 'pipe'] : 'ignore' },
  );
  if (options.logFile) {
    const logFile = options.logFile;
    child.stderr?.on('data', (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' }));
  }
  // The harness ends without stopping it (a crash): it goes too.
  const killNow = () => child.kill('SIGKILL');
  process.once('exit', killNow);
  const stop = async () => {
    process.off('exit', killNow);
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
    if (ready?.ok) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error('prometheus did not become ready within 20 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const get = async <T>(path: string, what: string): Promise<T> => {
    const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
    const answer = (await response.json()) as { status: string; error?: string; data?: T };
    if (answer.status !== 'success') throw new Error(`${what}: ${answer.error}`);
    return answer.data as T;
  };
  return {
    async query(expr, atMs) {
      const at = atMs === undefined ? '' : `&time=${(atMs / 1000).toFixed(3)}`;
      return (await get<{ result: unknown[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}${at}`, expr)).result;
    },
    async alerts() {
      return (await get<{ alerts: LiveAlert[] }>('/api/v1/alerts', 'alerts')).alerts;
    },
    stop,
  };
}
