import { useState } from 'react';
import { listWallets } from '../api/client.ts';
import { Link } from '../router.tsx';
import { Badge, Card, Empty, ErrorMessage, Loading, PageHeader, Pager, TableWrap } from '../ui/components.tsx';
import { formatDate, shorten } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';
import { listPageSize } from '../ui/lists.ts';

const limit = listPageSize;

export function walletPath(wallet: { address: string; chain: string; network: string }): string {
  const query = new URLSearchParams({ chain: wallet.chain, network: wallet.network });
  return `/wallets/${encodeURIComponent(wallet.address)}?${query}`;
}

export default function WalletsPage() {
  useTitle('Smart wallets');
  const [page, setPage] = useState(1);
  const wallets = useLoad(() => listWallets({ page, limit }), [page]);
  const list = wallets.data?.wallets ?? [];
  return (
    <>
      <PageHeader
        title="Smart wallets"
        description="ERC-4337 accounts made with POST /v1/wallets/create by any key of this account. A wallet is counterfactual until its first UserOperation deploys it."
      />
      <Card>
        <ErrorMessage error={wallets.error} />
        {wallets.loading && !wallets.data ? (
          <Loading what="Loading wallets" />
        ) : list.length === 0 ? (
          <Empty>No smart wallets yet.</Empty>
        ) : (
          <TableWrap label="Smart wallets">
            <table>
              <thead>
                <tr>
                  <th scope="col">Address</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Network</th>
                  <th scope="col">Status</th>
                  <th scope="col">EntryPoint</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((wallet) => (
                  <tr key={`${wallet.chain}/${wallet.network}/${wallet.address}`}>
                    <td>
                      <Link to={walletPath(wallet)} className="mono">
                        {wallet.address}
                      </Link>
                    </td>
                    <td className="mono" title={wallet.owner}>
                      {shorten(wallet.owner)}
                    </td>
                    <td>
                      {wallet.chain}/{wallet.network}
                    </td>
                    <td>
                      <Badge>{wallet.status}</Badge>
                    </td>
                    <td>v{wallet.entry_point_version}</td>
                    <td>{formatDate(wallet.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {wallets.data && <Pager page={page} limit={limit} total={wallets.data.total} onPage={setPage} />}
      </Card>
    </>
  );
}
