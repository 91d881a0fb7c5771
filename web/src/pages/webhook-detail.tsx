import { type FormEvent, Fragment, useState } from 'react';
import {
  deleteWebhook,
  getWebhook,
  listDeliveries,
  redeliver,
  replayWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../api/client.ts';
import type { Delivery, DeliveryStatus } from '../api/types.ts';
import { Link, navigate } from '../router.tsx';
import {
  ActionsHeader,
  Badge,
  Card,
  Empty,
  ErrorMessage,
  errorFor,
  Loading,
  PageHeader,
  Pager,
  SecretOnce,
  SelectField,
  TableWrap,
  TextField,
} from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { useHeld } from '../ui/flash.ts';
import { formatDate } from '../ui/format.ts';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';
import { toggled } from '../ui/lists.ts';
import { eventTypes } from './webhook-types.ts';

const limit = 25;

export default function WebhookDetailPage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? '';
  useTitle(`Webhook ${id}`);
  const webhook = useLoad(() => getWebhook(id), [id]);
  // The secret of a webhook made a moment ago on the creation page, shown once.
  const held = useHeld(`secret:${id}`);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | undefined>(() =>
    held ? { value: held, rotated: false } : undefined,
  );
  const [notice, setNotice] = useState<string | undefined>();
  const [deliveryRound, setDeliveryRound] = useState(0);
  const status = useAction(updateWebhook);
  const test = useAction(sendTestEvent);
  const rotate = useConfirmedAction(rotateWebhookSecret);
  const remove = useConfirmedAction(deleteWebhook);
  const data = webhook.data;

  if (webhook.error && !data) {
    return (
      <>
        <div className="breadcrumb">
          <Link to="/webhooks">Webhooks</Link> / {id}
        </div>
        <PageHeader title="Webhook not found" />
        <ErrorMessage error={webhook.error} />
      </>
    );
  }
  if (!data) return <Loading what="Loading the webhook" />;
  // Past 1,000 the answer carries the count, not the list (docs/webhooks.md, "Many addresses").
  const unlistedAddresses = data.config.addresses === undefined ? (data.address_count ?? 0) : 0;

  const toggle = async () => {
    const next = data.status === 'active' ? 'paused' : 'active';
    if (await status.run(id, { status: next })) {
      setNotice(next === 'paused' ? 'Paused: events wait until you resume.' : 'Resumed: waiting events are delivered in order.');
      webhook.reload();
    }
  };
  const sendTest = async () => {
    const sent = await test.run(id);
    if (sent) {
      setNotice(`Test event ${sent.event_id} queued as delivery ${sent.delivery_id}.`);
      setDeliveryRound((value) => value + 1);
    }
  };

  return (
    <>
      <div className="breadcrumb">
        <Link to="/webhooks">Webhooks</Link> / {data.id}
      </div>
      <PageHeader
        title={eventTypes[data.event_type]?.label ?? data.event_type}
        description={
          <>
            <code>{data.url}</code> <Badge>{data.status}</Badge>
          </>
        }
        actions={
          <>
            {data.status !== 'disabled' && (
              <button type="button" className="button button-secondary" disabled={status.busy} onClick={toggle}>
                {data.status === 'active' ? 'Pause' : 'Resume'}
              </button>
            )}
            <button type="button" className="button button-secondary" disabled={test.busy} onClick={sendTest}>
              {test.busy ? 'Sending…' : 'Send test event'}
            </button>
            <button type="button" className="button button-secondary" onClick={() => rotate.ask(id)}>
              Rotate secret
            </button>
            <button type="button" className="button button-danger-quiet" onClick={() => remove.ask(id)}>
              Delete
            </button>
          </>
        }
      />
      {notice && (
        <div className="alert alert-success" role="status">
          {notice}
        </div>
      )}
      <ErrorMessage error={status.error ?? test.error} />
      {data.status === 'disabled' && (
        <div className="alert alert-error" role="alert">
          Disabled{data.status_reason ? `: ${data.status_reason}` : ''}. Only an operator can enable it again.
        </div>
      )}
      {data.status === 'paused' && data.status_reason && (
        <div className="alert alert-warning" role="status">
          Paused: {data.status_reason}
        </div>
      )}
      {secret && (
        <Card title={secret.rotated ? 'New signing secret' : 'Signing secret'} className="card-highlight">
          <SecretOnce
            label="Signing secret"
            value={secret.value}
            warning={
              secret.rotated
                ? 'Copy the new secret now: it is shown only once. The previous secret keeps signing beside it for 24 hours.'
                : 'Copy this secret now: it is shown only once. Your endpoint verifies the signature of each delivery with it.'
            }
          />
          <div className="button-row">
            <button type="button" className="button button-secondary" onClick={() => setSecret(undefined)}>
              I have copied it
            </button>
          </div>
        </Card>
      )}
      <div className="grid">
        <Card title="Details">
          <dl className="details">
            <dt>Id</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
            <dt>Event type</dt>
            <dd>
              <code>{data.event_type}</code>
            </dd>
            <dt>Network</dt>
            <dd>
              {data.chain}/{data.network}
            </dd>
            <dt>Payload format</dt>
            <dd>{data.payload_format}</dd>
            <dt>Created</dt>
            <dd>{formatDate(data.created_at)}</dd>
            {data.previous_secret_expires_at && (
              <>
                <dt>Previous secret until</dt>
                <dd>{formatDate(data.previous_secret_expires_at)}</dd>
              </>
            )}
          </dl>
        </Card>
        <Card title="Filter">
          {unlistedAddresses > 0 && (
            <p>
              Watches {unlistedAddresses.toLocaleString('en')} addresses, too many to show here: read them with{' '}
              <code>GET /v1/webhooks/{id}/addresses</code>.
            </p>
          )}
          {Object.keys(data.config).length === 0 ? (
            unlistedAddresses === 0 && <p className="muted">No filter: every event of this type.</p>
          ) : (
            <pre className="code">{JSON.stringify(data.config, null, 2)}</pre>
          )}
        </Card>
        <ReplayCard id={id} onQueued={() => setDeliveryRound((value) => value + 1)} />
      </div>
      <DeliveryLog id={id} round={deliveryRound} onRefresh={webhook.reload} />
      <ConfirmActionDialog
        action={rotate}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onDone={(rotated) => {
          if (rotated.signing_secret) setSecret({ value: rotated.signing_secret, rotated: true });
          webhook.reload();
        }}
      >
        {() => <p>Deliveries are signed with a new secret from now on; the current one keeps signing beside it for 24 hours.</p>}
      </ConfirmActionDialog>
      <ConfirmActionDialog
        action={remove}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        onDone={() => navigate('/webhooks')}
      >
        {() => <p>The webhook, its events and its delivery log are deleted. This cannot be undone.</p>}
      </ConfirmActionDialog>
    </>
  );
}

function ReplayCard({ id, onQueued }: { id: string; onQueued: () => void }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const replay = useAction(replayWebhook);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    const asNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));
    const queued = await replay.run(id, { from_block: asNumber(from), to_block: asNumber(to) });
    if (queued) {
      setDone(`Blocks ${queued.from_block} to ${queued.to_block}: ${queued.queued} events queued.`);
      onQueued();
    }
  };
  return (
    <Card title="Replay a block range">
      <form onSubmit={submit} noValidate className="form">
        <ErrorMessage error={replay.error} fields={['from_block', 'to_block']} />
        <div className="form-grid">
          <TextField
            label="From block"
            inputMode="numeric"
            required
            value={from}
            onChange={(event) => setFrom(event.target.value)}
            error={errorFor(replay.error, 'from_block', 'Give the first block to replay.')}
          />
          <TextField
            label="To block"
            inputMode="numeric"
            placeholder="newest indexed"
            value={to}
            onChange={(event) => setTo(event.target.value)}
            error={errorFor(replay.error, 'to_block')}
          />
        </div>
        <div>
          <button type="submit" className="button button-secondary" disabled={replay.busy}>
            {replay.busy ? 'Queuing…' : 'Replay'}
          </button>
        </div>
        {done && (
          <div className="alert alert-success" role="status">
            {done}
          </div>
        )}
      </form>
    </Card>
  );
}

/** `onRefresh`: the webhook's own status is read again too (retries running out pause it). */
function DeliveryLog({ id, round, onRefresh }: { id: string; round: number; onRefresh: () => void }) {
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
