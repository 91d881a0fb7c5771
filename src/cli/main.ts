// Each command's modules are loaded when it runs: `--help` or an admin command must not load the
// whole service (viem, Fastify, the database driver) to print a line or make one HTTP call.

import { commandUsage, usage } from './usage.ts';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const help = commandUsage(command, rest);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  switch (command) {
    case 'start':
      return (await import('./start.ts')).runStart(rest);
    case 'migrate':
      return (await import('./migrate.ts')).runMigrate(rest);
    case 'devnet':
      return (await import('./devnet.ts')).runDevnet(rest);
    case 'backup':
      return (await import('./backup.ts')).runBackup(rest);
    case 'restore':
      return (await import('./backup.ts')).runRestore(rest);
    case 'accounts':
    case 'keys':
    case 'index':
    case 'webhooks':
    case 'users':
      return (await import('./admin-commands.ts')).runAdminCommand(command, rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${usage}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`blockyard: unknown command '${command}'\n\n${usage}\n`);
      return 2;
  }
}

try {
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
} catch (error) {
  // By name: importing ConfigError would load the config module for every command.
  if ((error as Error).name === 'ConfigError' || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`blockyard: ${(error as Error).message}\n`);
    process.exitCode = 2;
  } else if ((error as Error).name === 'BackupError') {
    // backup and restore refusals carry a stable code, for scripts (docs/operations.md lists them).
    process.stderr.write(`blockyard: ${(error as Error).message} (${(error as { code: string }).code})\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`blockyard: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
