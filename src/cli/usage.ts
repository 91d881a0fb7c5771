// The CLI's usage text, and each command's part of it for `blockyard <command> --help`.

export const usage = `blockyard: self-hostable blockchain infrastructure API

Usage:
  blockyard start [--port N] [--host H] [--data-dir DIR] [--config FILE] [--database-url URL]
                  [--redis-url URL] [--log-level LEVEL] [--mode development|production]
                  [--roles api,indexer,webhooks,bundler] [--block-time SECONDS] [--demo]
                  [--shutdown-grace SECONDS] [--join DATA_DIR]
  blockyard migrate [--dry-run] [--data-dir DIR] [--database-url URL] [--config FILE]
                  (--dry-run lists the pending migrations and changes nothing; blockyard migrate --help)
  blockyard devnet [--host H] [--port N] [--block-time SECONDS] [--chain-id N] [--data-dir DIR]
                  (a devnet for several nodes to share, with the ERC-4337 contracts; blockyard devnet --help)
  blockyard backup --out FILE [--data-dir DIR] [--database-url URL] [--config FILE]
                  (every table and the encryption key, in one file sealed with BLOCKYARD_BACKUP_PASSPHRASE)
  blockyard restore --in FILE [--data-dir DIR] [--database-url URL] [--config FILE]
                  (into an empty database, all or nothing; blockyard backup --help, docs/operations.md)
  blockyard accounts create --name NAME [--plan free|growth|enterprise] [--rps N] [--rpd N] [--cups N] [--email ADDRESS]
  blockyard accounts list [--page N] [--limit N]
  blockyard accounts set-email ACCOUNT_ID --email ADDRESS   (where notices such as a paused webhook go)
  blockyard keys create --account ID [--name NAME] [--env test|live] [--scopes a,b,...]
  blockyard keys list --account ID
  blockyard keys revoke KEY_ID
  blockyard keys update KEY_ID [--name NAME] [--scopes a,b,...] [--restrictions JSON] [--limits JSON]
                  (a given field replaces the stored one: --restrictions '{}' removes every restriction)
  blockyard keys rotate KEY_ID [--grace SECONDS]   (new key printed once; the old one works SECONDS more, default 86400)
  blockyard keys events KEY_ID [--page N] [--limit N]   (who changed the key and when, newest first)
  blockyard webhooks list [--account ID] [--status active|paused|disabled] [--page N] [--limit N]
  blockyard webhooks disable WEBHOOK_ID [--reason TEXT]   (only an operator can enable it again)
  blockyard webhooks enable WEBHOOK_ID
  blockyard users add-operator EMAIL   (a dashboard user who may use the admin view; made if new)
  blockyard users list [--page N] [--limit N]
  blockyard index status          (per network: indexed block, head, blocks behind, blocks/s, transfers/s)
  blockyard index backfill --network CHAIN/NETWORK --from N [--to M] [--detach]
                  (fills blocks N..M below where the index starts, in the service's background; M defaults to
                  the block just below it; shows progress until done, Ctrl-C stops only the display)
  blockyard index backfills [--network CHAIN/NETWORK]   (backfill jobs, newest first)

Admin commands talk to a running server: --url (default from the config's host and port) and
--admin-token (default BLOCKYARD_ADMIN_TOKEN, else <data dir>/admin-token). They print JSON.`;

/** Commands whose --help is answered here; migrate, devnet, backup and restore print their own. */
const helpedHere = new Set(['start', 'accounts', 'keys', 'index', 'webhooks', 'users']);

/**
 * `blockyard start --help`, `blockyard keys --help`, `blockyard keys create -h`…: the usage lines of
 * that command (each `  blockyard <command>` line with its indented continuation), else undefined.
 * Only arguments before a `--` count, and only `--help` or `-h` as a whole argument.
 */
export function commandUsage(command: string | undefined, args: string[]): string | undefined {
  if (command === undefined || !helpedHere.has(command)) return undefined;
  const end = args.indexOf('--');
  const asked = (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
  if (!asked) return undefined;
  const lines: string[] = [];
  let inCommand = false;
  for (const line of usage.split('\n')) {
    if (/^ {2}blockyard /.test(line)) inCommand = line.startsWith(`  blockyard ${command} `);
    else if (!/^ {3,}/.test(line)) inCommand = false;
    if (inCommand) lines.push(line);
  }
  const admin = command === 'start' ? '' : `\n\n${usage.slice(usage.indexOf('Admin commands talk'))}`;
  return `Usage:\n${lines.join('\n')}${admin}`;
}
