import { type FormEvent, useState } from 'react';
import { adminListAccounts, adminListWebhooks, adminSetWebhookStatus, adminUpdateAccount } from '../api/client.ts';
import type { Account, Limits, Plan, Webhook } from '../api/types.ts';
import { useSession } from '../session.tsx';
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
  SelectField,
  TableWrap,
  TextField,
} from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { Dialog, DialogButtons } from '../ui/dialog.tsx';
import { formatDate, formatLimit } from '../ui/format.ts';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';
import { numberOrText } from '../ui/lists.ts';

const limit = 25;
const limitNames: { name: keyof Limits; label: string; column: string }[] = [
  { name: 'rps', label: 'Requests per second', column: 'Requests / s' },
  { name: 'rpd', label: 'Requests per day', column: 'Requests / day' },
  { name: 'cups', label: 'Compute units per second', column: 'CU / s' },
  { name: 'webhook_deliveries_per_day', label: 'Webhook deliveries per day', column: 'Deliveries / day' },
];

export default function OperatorPage() {
  useTitle('Operator');
  const session = useSession();
  if (!session.user.operator) {
    return (
      <>
        <PageHeader title="Operator" />
        <div className="alert alert-error" role="alert">
          This page is for the service's operators only.
        </div>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Operator" description="Every account of this service: plans and limits, and every webhook." />
      <Accounts />
      <Webhooks />
    </>
  );
}

function Accounts() {
  const [page, setPage] = useState(1);
  const accounts = useLoad(() => adminListAccounts({ page, limit }), [page]);
  const [editing, setEditing] = useState<Account | undefined>();
  const list = accounts.data?.accounts ?? [];
  return (
    <Card title="Accounts">
      <ErrorMessage error={accounts.error} />
      {accounts.loading && !accounts.data ? (
        <Loading what="Loading accounts" />
      ) : list.length === 0 ? (
        <Empty>No accounts.</Empty>
      ) : (
        <TableWrap label="Accounts">
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Plan</th>
                {limitNames.map((entry) => (
                  <th key={entry.name} scope="col" className="num">
                    <abbr title={entry.label}>{entry.column}</abbr>
                  </th>
                ))}
                <th scope="col">Created</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {list.map((account) => (
                <tr key={account.id}>
                  <td>
                    {account.name}
                    <div className="muted mono">{account.id}</div>
                  </td>
                  <td>
                    <Badge tone="info">{account.plan}</Badge>
                  </td>
                  {limitNames.map((entry) => (
                    <td key={entry.name} className="num">
                      {formatLimit(account.limits[entry.name])}
                    </td>
                  ))}
                  <td>{formatDate(account.created_at)}</td>
                  <td className="actions">
                    <button type="button" className="button button-secondary button-small" onClick={() => setEditing(account)}>
                      Edit<span className="visually-hidden"> {account.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {accounts.data && <Pager page={page} limit={limit} total={accounts.data.total} onPage={setPage} />}
      {editing && (
        <EditAccountDialog
          account={editing}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            accounts.reload();
          }}
        />
      )}
    </Card>
  );
}

function EditAccountDialog({ account, onClose, onSaved }: { account: Account; onClose: () => void; onSaved: () => void }) {
  const [plan, setPlan] = useState<Plan>(account.plan);
  const [email, setEmail] = useState(account.email ?? '');
  const [limits, setLimits] = useState<Record<string, string>>(
    Object.fromEntries(
      limitNames.map((entry) => [entry.name, account.limits[entry.name] === null ? '' : String(account.limits[entry.name])]),
    ),
  );
  const save = useAction(adminUpdateAccount);
  const submit = async (_event: FormEvent) => {
    const body = {
      plan,
      email: email.trim() || null,
      // Empty: unlimited (null); what is not a number goes as typed, for the API to name.
      limits: Object.fromEntries(
        limitNames.map((entry) => [entry.name, numberOrText(limits[entry.name] ?? '') ?? null]),
      ) as Partial<Limits>,
    };
    if (await save.run(account.id, body)) onSaved();
  };
  return (
    <Dialog
      title={`Edit ${account.name}`}
      onClose={onClose}
      onSubmit={submit}
      footer={<DialogButtons onCancel={onClose} label="Save" busyLabel="Saving…" busy={save.busy} />}
    >
      <ErrorMessage error={save.error} fields={['plan', 'email', 'limits']} />
      <SelectField
        label="Plan"
        value={plan}
        onChange={(event) => setPlan(event.target.value as Plan)}
        error={errorFor(save.error, 'plan')}
      >
        <option value="free">free</option>
        <option value="growth">growth</option>
        <option value="enterprise">enterprise</option>
      </SelectField>
      <TextField
        label="Notice email"
        type="email"
        value={email}
        hint="Where notices such as a paused webhook go; empty: none."
        onChange={(event) => setEmail(event.target.value)}
        error={errorFor(save.error, 'email')}
      />
      <div className="form-grid">
        {limitNames.map((entry) => (
          <TextField
            key={entry.name}
            label={entry.label}
            inputMode="numeric"
            placeholder="unlimited"
            value={limits[entry.name] ?? ''}
            onChange={(event) => setLimits((previous) => ({ ...previous, [entry.name]: event.target.value }))}
            error={errorFor(save.error, `limits.${entry.name}`)}
          />
        ))}
      </div>
      <p className="hint">Empty limits are unlimited.</p>
    </Dialog>
  );
}

function Webhooks() {
  const [page, setPage] = useState(1);
  const webhooks = useLoad(() => adminListWebhooks({ page, limit }), [page]);
  const [reason, setReason] = useState('');
  const set = useConfirmedAction((webhook: Webhook) =>
    adminSetWebhookStatus(
      webhook.id,
      webhook.status === 'disabled'
        ? { status: 'active' }
        : { status: 'disabled', ...(reason.trim() ? { reason: reason.trim() } : {}) },
    ),
  );
  const list = webhooks.data?.webhooks ?? [];
  const disabling = set.item?.status !== 'disabled';
  return (
    <Card title="Webhooks of every account">
      <ErrorMessage error={webhooks.error} />
      {webhooks.loading && !webhooks.data ? (
        <Loading what="Loading webhooks" />
      ) : list.length === 0 ? (
        <Empty>No webhooks.</Empty>
      ) : (
        <TableWrap label="Webhooks of every account">
          <table>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">Account</th>
                <th scope="col">Event type</th>
                <th scope="col">Status</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {list.map((webhook) => (
                <tr key={webhook.id}>
                  <td>
                    <code>{webhook.url}</code>
                    <div className="muted mono">{webhook.id}</div>
                  </td>
                  <td className="mono">{webhook.account_id}</td>
                  <td>
                    <code>{webhook.event_type}</code>
                  </td>
                  <td>
                    <Badge>{webhook.status}</Badge>
                    {webhook.status_reason && <div className="muted">{webhook.status_reason}</div>}
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      className={`button button-small ${webhook.status === 'disabled' ? 'button-secondary' : 'button-danger-quiet'}`}
                      onClick={() => {
                        setReason('');
                        set.ask(webhook);
                      }}
                    >
                      {webhook.status === 'disabled' ? 'Enable' : 'Disable'}
                      <span className="visually-hidden"> {webhook.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {webhooks.data && <Pager page={page} limit={limit} total={webhooks.data.total} onPage={setPage} />}
      <ConfirmActionDialog
        action={set}
        title={disabling ? 'Disable this webhook?' : 'Enable this webhook?'}
        confirmLabel={disabling ? 'Disable' : 'Enable'}
        danger={disabling}
        onDone={webhooks.reload}
      >
        {(webhook) => (
          <>
            <p>
              <code>{webhook.url}</code>{' '}
              {disabling
                ? 'gets no deliveries until an operator enables it; its owners cannot resume it.'
                : 'is delivered to again.'}
            </p>
            {disabling && (
              <TextField
                label="Reason (shown to the account)"
                maxLength={500}
                value={reason}
                onChange={(event) => setReason(event.target.value)}
              />
            )}
          </>
        )}
      </ConfirmActionDialog>
    </Card>
  );
}
