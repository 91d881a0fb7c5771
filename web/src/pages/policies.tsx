import { useState } from 'react';
import { listPolicies } from '../api/client.ts';
import { Link } from '../router.tsx';
import { Badge, Card, Empty, ErrorMessage, Loading, PageHeader, Pager, TableWrap } from '../ui/components.tsx';
import { formatDate } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';
import { listPageSize } from '../ui/lists.ts';
import { summary } from './policy-rules.ts';

const limit = listPageSize;

export default function PoliciesPage() {
  useTitle('Gas policies');
  const [page, setPage] = useState(1);
  const policies = useLoad(() => listPolicies({ page, limit }), [page]);
  const list = policies.data?.policies ?? [];
  return (
    <>
      <PageHeader
        title="Gas policies"
        description="Which UserOperations the paymaster sponsors, and how much: caps in USD and operations, allowed contracts, methods and senders, time windows."
        actions={
          <Link to="/gas-policies/new" className="button button-primary">
            Create policy
          </Link>
        }
      />
      <Card>
        <ErrorMessage error={policies.error} />
        {policies.loading && !policies.data ? (
          <Loading what="Loading policies" />
        ) : list.length === 0 ? (
          <Empty>No gas policies yet.</Empty>
        ) : (
          <TableWrap label="Gas policies">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Network</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((policy) => (
                  <tr key={policy.id}>
                    <td>
                      <Link to={`/gas-policies/${encodeURIComponent(policy.id)}`}>{policy.name}</Link>
                      <div className="muted mono">{policy.id}</div>
                    </td>
                    <td>
                      {policy.chain}/{policy.network}
                    </td>
                    <td>{summary(policy.rules)}</td>
                    <td>
                      <Badge>{policy.status}</Badge>
                    </td>
                    <td>{formatDate(policy.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {policies.data && <Pager page={page} limit={limit} total={policies.data.total} onPage={setPage} />}
      </Card>
    </>
  );
}
