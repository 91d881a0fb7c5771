import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from '../support/closed-port.ts';

export interface LivePrometheus {
  /** Evaluates a PromQL expression now: its series, or throws with Prometheus's error. */
  query(expr: string): Promise<unknown[]>;
  stop(): Promise<void>;
}

/**
 * Debian's Prometheus on 127.0.0.1, scraping `target` (host:port, job "blockyard", with the admin
 * token) every second, its data in a temporary directory removed at stop.
 */
export async function startPrometheus(target: string, bearer: string): Promise<LivePrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      '  - job_name: blockyard',
      `    authorization: { credentials: "${bearer}" }`,
      `    static_configs: [{ targets: ["${target}"] }]`,
      '',
    ].join('\n'),
  );
  const port = await closedPort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: 'ignore' },
  );
  const stop = async () => {
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
  return {
    async query(expr) {
      const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`, {
        signal: AbortSignal.timeout(5_000),
      });
      const answer = (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
      if (answer.status !== 'success') throw new Error(`${expr}: ${answer.error}`);
      return answer.data!.result;
    },
    stop,
  };
}
