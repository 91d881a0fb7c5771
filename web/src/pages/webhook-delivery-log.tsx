import { Fragment, useState } from 'react';
import { listDeliveries, redeliver } from '../api/client.ts';
import type { Delivery, DeliveryStatus } from '../api/types.ts';
import { ActionsHeader, Badge, Card, Empty, ErrorMessage, Loading, Pager, SelectField, TableWrap } from '../ui/components.tsx';
import { formatDate } from '../ui/format.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { listPageSize, toggled } from '../ui/lists.ts';

const limit = listPageSize;

/** `onRefresh`: the webhook's own status is read again too (retries running out pause it). */
export function DeliveryLog({ id, round, onRefresh }: { id: string; round: number; onRefresh: () => void }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [refresh, setRefresh] = useState(0);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const deliveries = useLoad(
    () => listDeliveries(id, { page, limit, status: status || undefined }),
    [id, page, status, round, refresh],
  );
  const again = useAction(redeliver);
  const [notice, setNotice] = useState<string | undefined>();
  const list = deliveries.data?.deliveries ?? [];
  const toggle = (deliveryId: string) => setOpen((previous) => toggled(previous, deliveryId));

  return (
    <Card
      title="Delivery log"
      actions={
        <div className="page-actions">
          <SelectField
            label="Status"
            className="inline-field"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as DeliveryStatus | '');
              setPage(1);
            }}
          >
            <option value="">any</option>
            {['pending', 'paused', 'succeeded', 'failed', 'cancelled'].map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </SelectField>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => {
              setRefresh((value) => value + 1);
              onRefresh();
            }}
          >
            Refresh
          </button>
        </div>
      }
    >
      <ErrorMessage error={deliveries.error ?? again.error} />
      {notice && (
        <div className="alert alert-success" role="status">
          {notice}
        </div>
      )}
      {deliveries.loading && !deliveries.data ? (
        <Loading what="Loading deliveries" />
      ) : list.length === 0 ? (
        <Empty>No deliveries yet. Send a test event to see one.</Empty>
      ) : (
        <TableWrap label="Delivery log">
          <table>
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  HTTP
                </th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col" className="num">
                  Latency
                </th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {list.map((delivery) => {
                const last = delivery.attempts[delivery.attempts.length - 1];
                const expanded = open.has(delivery.id);
                return (
                  <Fragment key={delivery.id}>
                    <tr>
                      <td>
                        <button
                          type="button"
                          className="icon-button"
                          aria-expanded={expanded}
                          aria-controls={`delivery-${delivery.id}`}
                          aria-label={`${expanded ? 'Hide' : 'Show'} the request and response of ${delivery.id}`}
                          onClick={() => toggle(delivery.id)}
                        >
                          {expanded ? '▾' : '▸'}
                        </button>
                      </td>
                      <td>{formatDate(delivery.created_at)}</td>
                      <td>
                        <code>{delivery.event_type}</code>
                        {delivery.test && <span className="badge badge-info">test</span>}
                        {delivery.block_number !== null && <div className="muted">block {delivery.block_number}</div>}
                      </td>
                      <td>
                        <Badge>{delivery.status}</Badge>
                      </td>
                      <td className="num">{last?.response.status ?? (last?.error ? 'error' : '—')}</td>
                      <td className="num">{delivery.attempt_count}</td>
                      <td className="num">{last ? `${last.latency_ms} ms` : '—'}</td>
                      <td className="actions">
                        <button
                          type="button"
                          className="button button-secondary button-small"
                          disabled={again.busy}
                          onClick={async () => {
                            const sent = await again.run(id, delivery.id);
                            if (sent) {
                              setNotice(`Event ${sent.event_id} queued again as delivery ${sent.delivery_id}.`);
                              setRefresh((value) => value + 1);
                            }
                          }}
                        >
                          Redeliver
                        </button>
                      </td>
                    </tr>
                    {expanded && (
                      <tr className="expanded-row" id={`delivery-${delivery.id}`}>
                        <td colSpan={8}>
                          <DeliveryAttempts delivery={delivery} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      {deliveries.data && <Pager page={page} limit={limit} total={deliveries.data.total} onPage={setPage} />}
    </Card>
  );
}

function pretty(body: string | null): string {
  if (body === null) return '(none)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function DeliveryAttempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) {
    return (
      <p className="muted">
        Not attempted yet{delivery.next_attempt_at ? ` (next at ${formatDate(delivery.next_attempt_at)})` : ''}.
      </p>
    );
  }
  return (
    <div className="attempts">
      <p className="muted">
        Delivery <code>{delivery.id}</code>, event <code>{delivery.event_id}</code>
        {delivery.note ? ` — ${delivery.note}` : ''}
      </p>
      {delivery.attempts.map((attempt) => (
        <div key={attempt.attempt} className="attempt">
          <h3>
            Attempt {attempt.attempt} · {formatDate(attempt.attempted_at)} · {attempt.response.status ?? 'no response'} ·{' '}
            {attempt.latency_ms} ms
          </h3>
          {attempt.error && <div className="alert alert-error">{attempt.error}</div>}
          <div className="grid">
            <div>
              <strong>Request</strong>
              <pre className="code">
                {`POST ${attempt.request.url}\n${Object.entries(attempt.request.headers)
                  .map(([name, value]) => `${name}: ${value}`)
                  .join('\n')}\n\n${pretty(attempt.request.body)}`}
              </pre>
            </div>
            <div>
              <strong>Response {attempt.response.status ?? ''}</strong>
              <pre className="code">{pretty(attempt.response.body)}</pre>
            </div>
          </div>
        </div>
      ))}
    </div>
  );
}
