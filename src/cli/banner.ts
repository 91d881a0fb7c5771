import { join } from 'node:path';
import type { RunningService } from '../service/start-service.ts';

/** What `blockyard start` prints for a person: where the API is and a key that works now. */
export function formatBanner(service: RunningService): string {
  const { config } = service.ctx;
  const lines = ['', `Blockyard is running at ${service.url}`, ...connectLines(service), `  API reference:  ${service.url}/docs`];
  for (const reason of service.notReady) lines.push(`  NOT READY:      ${reason}`);
  if (service.devSignInUrl) lines.push(`  Dashboard:      ${service.url}/ (sign in: ${service.devSignInUrl})`);
  for (const chain of config.chains) {
    const devnetUrl = service.devnet?.url ?? service.joined?.devnet?.url;
    lines.push(
      `  Chain:          ${chain.chain}/${chain.network} (chain id ${chain.chainId})${chain.embedded ? ` embedded devnet at ${devnetUrl}` : ''}`,
    );
  }
  if (service.devKey) {
    lines.push(`  Test API key:   ${service.devKey.key}`, `                  (saved in ${service.devKey.path})`);
    const firstChain = config.chains[0];
    if (firstChain) {
      lines.push(
        '',
        'Try:',
        `  curl -H "X-API-Key: ${service.devKey.key}" -X POST ${service.url}/v1/rpc/${firstChain.chain}/${firstChain.network} \\`,
        `    -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'`,
      );
    }
  }
  if (service.joined) {
    lines.push(
      '',
      `Joined:         the Blockyard running on ${config.dataDir} (pid ${service.joined.pid}): its database and devnet`,
    );
  } else if (service.embeddedDatabaseUrl || service.devnet) {
    lines.push(
      '',
      'Other processes (more roles, on this database and devnet):',
      `  npm start -- --join ${config.dataDir} --roles indexer`,
    );
  }
  if (service.embeddedDatabaseUrl) {
    lines.push(
      '',
      `Database:       embedded Postgres in ${join(config.dataDir, 'postgres')}; to share it (--join does this for you):`,
      `                DATABASE_URL=${withPasswordFromFile(service.embeddedDatabaseUrl, join(config.dataDir, 'postgres', 'password'))}`,
    );
  }
  lines.push('', `Admin token: ${config.adminToken ? 'from BLOCKYARD_ADMIN_TOKEN' : `in ${config.dataDir}/admin-token`}`, '');
  return `${lines.join('\n')}\n`;
}

/**
 * The URL forms first, key included: what a person pastes into MetaMask, Foundry (`--rpc-url`),
 * Hardhat, ethers or viem, none of which need a header then.
 */
function connectLines(service: RunningService): string[] {
  const chain = service.ctx.config.chains[0];
  if (!service.devKey || !chain) return [];
  const path = `${chain.chain}/${chain.network}/${service.devKey.key}`;
  const lines = [
    '  Connect (paste this URL into MetaMask, Foundry --rpc-url, Hardhat, ethers, viem):',
    `    ${service.url}/v1/rpc/${path}`,
  ];
  if (chain.kind !== 'evm') return lines;
  lines.push(`    ${service.url.replace(/^http/, 'ws')}/v1/ws/${path}   (WebSocket)`);
  if (chain.bundler.enabled) lines.push(`    ${service.url}/v1/bundler/${path}   (ERC-4337 bundler)`);
  return lines;
}

/** The URL with its password as a shell command reading the password file: the secret stays off the screen and out of logs. */
function withPasswordFromFile(url: string, passwordFile: string): string {
  const parsed = new URL(url);
  return `postgres://${parsed.username}:$(cat ${passwordFile})@${parsed.host}${parsed.pathname}`;
}
