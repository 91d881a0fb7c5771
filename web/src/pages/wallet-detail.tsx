import { getWallet } from '../api/client.ts';
import { Link, useLocation } from '../router.tsx';
import { Badge, Card, CopyButton, ErrorMessage, Loading, PageHeader } from '../ui/components.tsx';
import { formatDate } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';

export default function WalletDetailPage({ params }: { params: Record<string, string> }) {
  const address = params.address ?? '';
  useTitle(`Wallet ${address}`);
  const { query } = useLocation();
  const chain = query.get('chain') ?? undefined;
  const network = query.get('network') ?? undefined;
  const wallet = useLoad(() => getWallet(address, { chain, network }), [address, chain, network]);
  const data = wallet.data;
  return (
    <>
      <div className="breadcrumb">
        <Link to="/wallets">Smart wallets</Link> / <span className="mono">{address}</span>
      </div>
      {!data ? (
        wallet.error ? (
          <>
            <PageHeader title="Wallet not found" />
            <ErrorMessage error={wallet.error} />
          </>
        ) : (
          <Loading what="Loading the wallet" />
        )
      ) : (
        <>
          <PageHeader
            title="Smart wallet"
            description={
              <>
                <code>{data.address}</code> <CopyButton text={data.address} label="Copy address" />
              </>
            }
          />
          <div className="grid">
            <Card title="State">
              <dl className="details">
                <dt>Status</dt>
                <dd>
                  <Badge>{data.status}</Badge>
                </dd>
                <dt>Nonce</dt>
                <dd>{String(data.nonce)}</dd>
                <dt>Deployed</dt>
                <dd>{data.deployed_at ? formatDate(data.deployed_at) : 'not yet: the first UserOperation deploys it'}</dd>
                <dt>Deploy transaction</dt>
                <dd>{data.deploy_tx ? <code>{data.deploy_tx}</code> : '—'}</dd>
              </dl>
            </Card>
            <Card title="Setup">
              <dl className="details">
                <dt>Owner</dt>
                <dd>
                  <code>{data.owner}</code>
                </dd>
                <dt>Network</dt>
                <dd>
                  {data.chain}/{data.network}
                </dd>
                <dt>EntryPoint</dt>
                <dd>
                  <code>{data.entry_point}</code> (v{data.entry_point_version})
                </dd>
                <dt>Factory</dt>
                <dd>
                  <code>{data.factory}</code>
                </dd>
                <dt>Salt</dt>
                <dd>
                  <code>{data.salt}</code>
                </dd>
                <dt>Created</dt>
                <dd>{formatDate(data.created_at)}</dd>
              </dl>
            </Card>
          </div>
        </>
      )}
    </>
  );
}
