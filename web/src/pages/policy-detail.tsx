import { deletePolicy, getPolicy, getPolicyUsage, updatePolicy } from '../api/client.ts';
import { Link, navigate } from '../router.tsx';
import { TimeChart } from '../ui/chart.tsx';
import { Badge, Card, Empty, ErrorMessage, Loading, PageHeader, TableWrap } from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { formatDate, formatNumber } from '../ui/format.ts';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';
import { ruleFields } from './policy-rules.ts';

const day = 86_400_000;

export default function PolicyDetailPage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? '';
  useTitle(`Gas policy ${id}`);
  const policy = useLoad(() => getPolicy(id), [id]);
  const usage = useLoad(() => getPolicyUsage(id), [id]);
  const status = useAction(updatePolicy);
  const remove = useConfirmedAction(deletePolicy);
  const data = policy.data;

  if (!data) {
    return policy.error ? (
      <>
        <div className="breadcrumb">
          <Link to="/gas-policies">Gas policies</Link> / {id}
        </div>
        <PageHeader title="Gas policy not found" />
        <ErrorMessage error={policy.error} />
      </>
    ) : (
      <Loading what="Loading the policy" />
    );
  }
  const shown = ruleFields.filter((field) => data.rules[field.name] !== undefined);
  const rate = data.rules.rate_limit as { ops: number; per_seconds: number } | undefined;
  const days = usage.data?.by_day ?? [];
  const to = Date.now();
  const from = to - 30 * day;

  return (
    <>
      <div className="breadcrumb">
        <Link to="/gas-policies">Gas policies</Link> / {data.name}
      </div>
      <PageHeader
        title={data.name}
        description={
          <>
            <code>{data.id}</code> on {data.chain}/{data.network} <Badge>{data.status}</Badge>
          </>
        }
        actions={
          <>
            <button
              type="button"
              className="button button-secondary"
              disabled={status.busy}
              onClick={async () => {
                if (await status.run(id, { status: data.status === 'active' ? 'paused' : 'active' })) policy.reload();
              }}
            >
              {data.status === 'active' ? 'Pause' : 'Resume'}
            </button>
            <Link to={`/gas-policies/${encodeURIComponent(id)}/edit`} className="button button-secondary">
              Edit
            </Link>
            <button type="button" className="button button-danger-quiet" onClick={() => remove.ask(id)}>
              Delete
            </button>
          </>
        }
      />
      <ErrorMessage error={status.error} />
      {data.status === 'paused' && (
        <div className="alert alert-warning" role="status">
          Paused: this policy keeps its rules and usage and sponsors nothing until resumed.
        </div>
      )}
      <div className="grid">
        <Card title="Rules">
          {shown.length === 0 && !rate ? (
            <p className="muted">No limits.</p>
          ) : (
            <dl className="details">
              {shown.map((field) => {
                const value = data.rules[field.name];
                return (
                  <div key={field.name} className="details-row">
                    <dt>{field.label}</dt>
                    <dd>
                      {Array.isArray(value)
                        ? value.map((entry) => (
                            <div key={String(entry)}>
                              <code>{String(entry)}</code>
                            </div>
                          ))
                        : field.kind === 'time'
                          ? formatDate(String(value))
                          : String(value)}
                    </dd>
                  </div>
                );
              })}
              {rate && (
                <div className="details-row">
                  <dt>Rate limit</dt>
                  <dd>
                    {rate.ops} operations per {rate.per_seconds} s
                  </dd>
                </div>
              )}
            </dl>
          )}
        </Card>
        <Card title="Spent">
          <ErrorMessage error={usage.error} />
          {usage.data ? (
            <dl className="details">
              <dt>Operations sponsored</dt>
              <dd>{formatNumber(usage.data.ops)}</dd>
              <dt>Sponsored</dt>
              <dd>${usage.data.sponsored_usd}</dd>
              <dt>Settled (landed)</dt>
              <dd>${usage.data.settled_usd}</dd>
              <dt>Reserved (open)</dt>
              <dd>${usage.data.reserved_usd}</dd>
              {typeof data.rules.max_gas_usd === 'string' && (
                <>
                  <dt>Cap</dt>
                  <dd>${data.rules.max_gas_usd}</dd>
                </>
              )}
            </dl>
          ) : (
            !usage.error && <Loading />
          )}
        </Card>
      </div>
      <Card title="Operations per day (last 30 days)">
        <TimeChart
          label="Sponsored operations per day"
          points={days
            .map((entry) => ({ t: Date.parse(`${entry.day}T00:00:00Z`), value: entry.ops }))
            .filter((point) => point.t >= from - day)}
          from={from}
          to={to}
          bucketMs={day}
        />
      </Card>
      <div className="grid">
        <Card title="By day">
          {days.length === 0 ? (
            <Empty>Nothing sponsored yet.</Empty>
          ) : (
            <TableWrap label="Sponsored by day">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    <th scope="col" className="num">
                      Operations
                    </th>
                    <th scope="col" className="num">
                      USD
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[...days].reverse().map((entry) => (
                    <tr key={entry.day}>
                      <td>{entry.day}</td>
                      <td className="num">{formatNumber(entry.ops)}</td>
                      <td className="num">${entry.usd}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </Card>
        <Card title="By sender">
          {(usage.data?.by_sender ?? []).length === 0 ? (
            <Empty>No senders yet.</Empty>
          ) : (
            <TableWrap label="Sponsored by sender">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Sender</th>
                    <th scope="col" className="num">
                      Operations
                    </th>
                    <th scope="col" className="num">
                      USD
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data?.by_sender.map((entry) => (
                    <tr key={entry.sender}>
                      <td>
                        <code className="wrap-anywhere">{entry.sender}</code>
                      </td>
                      <td className="num">{formatNumber(entry.ops)}</td>
                      <td className="num">${entry.usd}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </Card>
      </div>
      <ConfirmActionDialog
        action={remove}
        title="Delete this policy?"
        confirmLabel="Delete policy"
        danger
        onDone={() => navigate('/gas-policies')}
      >
        {() => (
          <p>
            <strong>{data.name}</strong> stops sponsoring at once, and its usage is gone. This cannot be undone.
          </p>
        )}
      </ConfirmActionDialog>
    </>
  );
}
