import { getChains } from '../api/client.ts';
import { Meter } from '../ui/chart.tsx';
import { Badge, Card, Empty, ErrorMessage, Loading, PageHeader } from '../ui/components.tsx';
import { formatNumber } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';

export default function ChainsPage() {
  useTitle('Chains');
  const chains = useLoad(getChains, []);
  const networks = chains.data?.networks ?? [];
  return (
    <>
      <PageHeader
        title="Chains"
        description="The networks this service serves, the health of their upstream nodes and how far the indexer has read."
        actions={
          <button type="button" className="button button-secondary" onClick={chains.reload}>
            Refresh
          </button>
        }
      />
      <ErrorMessage error={chains.error} />
      {chains.loading && !chains.data ? (
        <Loading what="Loading networks" />
      ) : networks.length === 0 ? (
        <Card>
          <Empty>No networks configured.</Empty>
        </Card>
      ) : (
        <div className="grid">
          {networks.map((network) => (
            <Card
              key={`${network.chain}/${network.network}`}
              title={`${network.chain}/${network.network}`}
              actions={
                <div className="chips">
                  <Badge tone={network.testnet ? 'neutral' : 'info'}>{network.testnet ? 'testnet' : 'mainnet'}</Badge>
                  <Badge tone="neutral">{network.kind}</Badge>
                </div>
              }
            >
              <dl className="details">
                <dt>Chain id</dt>
                <dd>{network.chain_id}</dd>
                <dt>Bundler</dt>
                <dd>{network.bundler ? 'enabled' : 'off'}</dd>
                <dt>Indexer</dt>
                <dd>
                  {network.indexer ? (
                    <>
                      {formatNumber(network.indexer.indexed)} of {formatNumber(network.indexer.head)}
                      {network.indexer.behind > 0 ? `, ${formatNumber(network.indexer.behind)} behind` : ', up to date'}
                      {!network.indexer.running && ' (not running)'}
                      <Meter
                        progress
                        value={network.indexer.indexed}
                        max={Math.max(1, network.indexer.head)}
                        label={`indexed ${network.indexer.indexed} of ${network.indexer.head} blocks`}
                      />
                    </>
                  ) : (
                    'off'
                  )}
                </dd>
              </dl>
              <h3 className="section-title">Upstreams</h3>
              <ul className="upstreams">
                {network.upstreams.map((upstream, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: one host may serve two upstreams
                  <li key={index}>
                    <span className={`health-dot ${upstream.healthy ? 'health-good' : 'health-bad'}`} aria-hidden="true" />
                    <code>{upstream.name}</code>
                    {upstream.name !== upstream.url_host && <span className="muted"> ({upstream.url_host})</span>}{' '}
                    <span className="muted">{upstream.condition.replace('_', ' ')}</span>
                    {upstream.tier === 'fallback' && <span className="muted"> · fallback</span>}
                    {upstream.latency_ms !== null && <span className="muted"> · {upstream.latency_ms} ms</span>}
                    {upstream.reason && <div className="muted">{upstream.reason}</div>}
                  </li>
                ))}
              </ul>
            </Card>
          ))}
        </div>
      )}
    </>
  );
}
