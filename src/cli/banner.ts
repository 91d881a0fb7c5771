import type { RunningService } from '../service/start-service.ts';

/** What `blockyard start` prints for a person: where the API is and a key that works now. */
export function formatBanner(service: RunningService): string {
  const { config } = service.ctx;
  const lines = ['', `Blockyard is running at ${service.url}`, `  API reference:  ${service.url}/docs`];
  for (const chain of config.chains) {
    lines.push(
      `  Chain:          ${chain.chain}/${chain.network} (chain id ${chain.chainId})${chain.embedded ? ` embedded devnet at ${service.devnet?.url}` : ''}`,
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
  if (service.embeddedDatabaseUrl) {
    lines.push(
      '',
      `Database:       embedded Postgres in ${config.dataDir}/postgres; other processes (--roles) can share it with`,
      `                DATABASE_URL=${service.embeddedDatabaseUrl}`,
    );
  }
  lines.push('', `Admin token: ${config.adminToken ? 'from BLOCKYARD_ADMIN_TOKEN' : `in ${config.dataDir}/admin-token`}`, '');
  return `${lines.join('\n')}\n`;
}
