import { type FormEvent, useState } from 'react';
import { deleteWebhook, getWebhook, replayWebhook, rotateWebhookSecret, sendTestEvent, updateWebhook } from '../api/client.ts';
import { Link, navigate } from '../router.tsx';
import { Badge, Card, ErrorMessage, errorFor, Loading, PageHeader, SecretOnce, TextField } from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { useHeld } from '../ui/flash.ts';
import { formatDate } from '../ui/format.ts';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';
import { DeliveryLog } from './webhook-delivery-log.tsx';
import { eventTypes } from './webhook-types.ts';

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
