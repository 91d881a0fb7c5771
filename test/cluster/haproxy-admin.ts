import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

/**
 * haproxy's runtime API on a Unix socket (the `stats socket ... level admin` line of Debian's own
 * haproxy.cfg). deploy/haproxy.cfg has none; the run adds it with a second `-f` file, as an operator's
 * global section would.
 */
export interface HaproxyAdmin {
  readonly socket: string;
  /** The extra configuration file that opens the socket (pass it with `-f` after deploy/haproxy.cfg). */
  readonly configFile: string;
  command(line: string): Promise<string>;
  /** A server's row of `show stat`: status (UP, DOWN, DRAIN, MAINT...), current and total sessions. */
  server(backend: string, name: string): Promise<{ status: string; current: number; total: number }>;
}

export function haproxyAdmin(runDir: string): HaproxyAdmin {
  const socket = join(runDir, 'haproxy-admin.sock');
  const configFile = join(runDir, 'haproxy-admin.cfg');
  writeFileSync(configFile, `global\n    stats socket ${socket} mode 600 level admin\n`);
  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const client = connect(socket);
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => client.destroy(new Error(`haproxy did not answer "${line}"`)), 5_000);
      client.on('connect', () => client.write(`${line}\n`));
      client.on('data', (chunk: Buffer) => chunks.push(chunk));
      client.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      client.on('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
    });
  return {
    socket,
    configFile,
    command,
    async server(backend, name) {
      const [header, ...rows] = (await command('show stat')).trim().split('\n');
      const columns = (header ?? '').replace(/^# /, '').split(',');
      const column = (row: string[], field: string) => row[columns.indexOf(field)] ?? '';
      const row = rows.map((line) => line.split(',')).find((fields) => fields[0] === backend && fields[1] === name);
      if (!row) throw new Error(`haproxy has no server ${backend}/${name}`);
      return { status: column(row, 'status'), current: Number(column(row, 'scur')), total: Number(column(row, 'stot')) };
    },
  };
}
