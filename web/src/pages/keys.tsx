import { type FormEvent, useState } from 'react';
import { type Scope, scopes } from '../../../src/auth/scopes.ts';
import { createKey, listKeys, revokeKey } from '../api/client.ts';
import type { ApiKey, CreatedApiKey, Environment } from '../api/types.ts';
import { Link } from '../router.tsx';
import {
  ActionsHeader,
  Badge,
  Card,
  Empty,
  ErrorMessage,
  errorFor,
  Loading,
  PageHeader,
  SecretOnce,
  SelectField,
  TableWrap,
  TextField,
} from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { Dialog, DialogButtons } from '../ui/dialog.tsx';
import { formatAgo, formatDate } from '../ui/format.ts';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';
import { toggled } from '../ui/lists.ts';
import { ScopeFields } from '../ui/scope-fields.tsx';

export default function KeysPage() {
  useTitle('API keys');
  const keys = useLoad(listKeys, []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | undefined>();
  const revoke = useConfirmedAction((key: ApiKey) => revokeKey(key.id));
  const list = keys.data?.keys ?? [];
  const active = list.filter((key) => !key.revoked_at);
  const revoked = list.filter((key) => key.revoked_at);

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate calls to /v1. Test keys reach testnets, live keys mainnets; scopes limit what a key may do."
        actions={
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create key
          </button>
        }
      />
      {created && (
        <Card title={`Key “${created.name}” created`} className="card-highlight">
          <SecretOnce
            label="Your new API key"
            value={created.key}
            warning="Copy this key now and keep it somewhere safe: it is shown only once. If you lose it, revoke it and create another."
          />
          <div className="button-row">
            <button type="button" className="button button-secondary" onClick={() => setCreated(undefined)}>
              I have copied it
            </button>
          </div>
        </Card>
      )}
      <Card>
        <ErrorMessage error={keys.error} />
        {keys.loading && !keys.data ? (
          <Loading what="Loading keys" />
        ) : active.length === 0 ? (
          <Empty>No keys yet. Create one to call the API.</Empty>
        ) : (
          <KeyTable keys={active} onRevoke={revoke.ask} />
        )}
      </Card>
      {revoked.length > 0 && (
        <Card title="Revoked keys">
          <KeyTable keys={revoked} />
        </Card>
      )}
      {creating && (
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            keys.reload();
          }}
        />
      )}
      <ConfirmActionDialog action={revoke} title="Revoke this key?" confirmLabel="Revoke key" danger onDone={keys.reload}>
        {(key) => (
          <p>
            Calls with <strong>{key.name}</strong> (<code>{key.prefix}…</code>) are refused with 401 from now on. This cannot be
            undone.
          </p>
        )}
      </ConfirmActionDialog>
    </>
  );
}

function KeyTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke?: (key: ApiKey) => void }) {
  return (
    <TableWrap label={onRevoke ? 'API keys' : 'Revoked keys'}>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Environment</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">{onRevoke ? 'Last used' : 'Revoked'}</th>
            {onRevoke && <ActionsHeader />}
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td className="wrap-anywhere">
                <Link to={`/keys/${encodeURIComponent(key.id)}`}>{key.name}</Link>
              </td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>
                <Badge tone={key.environment === 'live' ? 'info' : 'neutral'}>{key.environment}</Badge>
              </td>
              <td>
                <div className="chips">
                  {key.scopes.length === scopes.length ? (
                    <span className="chip">all scopes</span>
                  ) : (
                    key.scopes.map((scope) => (
                      <span className="chip" key={scope}>
                        {scope}
                      </span>
                    ))
                  )}
                </div>
              </td>
              <td>{formatDate(key.created_at)}</td>
              <td>{onRevoke ? formatAgo(key.last_used_at) : formatDate(key.revoked_at)}</td>
              {onRevoke && (
                <td className="actions">
                  <button type="button" className="button button-danger-quiet button-small" onClick={() => onRevoke(key)}>
                    Revoke<span className="visually-hidden"> {key.name}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>('test');
  const [chosen, setChosen] = useState<Set<Scope>>(new Set(scopes));
  const create = useAction(createKey);

  const submit = async (_event: FormEvent) => {
    const key = await create.run({ name: name.trim(), environment, scopes: scopes.filter((scope) => chosen.has(scope)) });
    if (key) onCreated(key);
  };
  const toggle = (scope: Scope) => setChosen((previous) => toggled(previous, scope));

  return (
    <Dialog
      title="Create an API key"
      onClose={onClose}
      onSubmit={submit}
      footer={<DialogButtons onCancel={onClose} label="Create key" busyLabel="Creating…" busy={create.busy} />}
    >
      <ErrorMessage error={create.error} fields={['name', 'environment', 'scopes']} />
      <TextField
        label="Name"
        name="name"
        required
        maxLength={200}
        placeholder="e.g. backend production"
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={errorFor(create.error, 'name', 'Give the key a name.')}
      />
      <SelectField
        label="Environment"
        name="environment"
        value={environment}
        onChange={(event) => setEnvironment(event.target.value as Environment)}
        hint="Test keys reach testnets and devnets; live keys reach mainnets."
        error={errorFor(create.error, 'environment')}
      >
        <option value="test">test</option>
        <option value="live">live</option>
      </SelectField>
      <ScopeFields chosen={chosen} onToggle={toggle} error={errorFor(create.error, 'scopes', 'Choose at least one scope.')} />
    </Dialog>
  );
}
