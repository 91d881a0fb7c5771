import { useState } from 'react';
import { scopes } from '../../../src/auth/scopes.ts';
import { listKeys, revokeKey } from '../api/client.ts';
import type { ApiKey, CreatedApiKey } from '../api/types.ts';
import { Link } from '../router.tsx';
import { useSession } from '../session.tsx';
import { Badge, Card, ErrorMessage, Loading, PageHeader } from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { formatAgo, formatDate, formatIn, formatNumber } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';
import { KeyEditForm } from './key-edit-form.tsx';
import { KeyEvents } from './key-events.tsx';
import { formValuesOf, limitFields, listFields } from './key-form-values.ts';
import { RotatedKeyCard, RotateKeyDialog } from './key-rotate.tsx';

export default function KeyDetailPage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? '';
  // An account has a handful of keys: the list (with each key's last use) holds this one.
  const keys = useLoad(listKeys, []);
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [rotated, setRotated] = useState<CreatedApiKey>();
  const [saved, setSaved] = useState(false);
  const revoke = useConfirmedAction((target: ApiKey) => revokeKey(target.id));
  const key = keys.data?.keys.find((entry) => entry.id === id);
  useTitle(key ? `API key ${key.name}` : 'API key');

  if (!key) {
    if (keys.loading || (!keys.data && !keys.error)) return <Loading what="Loading the key" />;
    return (
      <>
        <div className="breadcrumb">
          <Link to="/keys">API keys</Link> / {id}
        </div>
        <PageHeader title="API key not found" />
        <ErrorMessage error={keys.error} />
        {!keys.error && <p>This account has no key with the id {id}.</p>}
      </>
    );
  }
  const changed = () => keys.reload();
  const active = !key.revoked_at;

  return (
    <>
      <div className="breadcrumb">
        <Link to="/keys">API keys</Link> / {key.name}
      </div>
      <PageHeader
        title={key.name}
        description={
          <>
            <code>{key.prefix}…</code> <Badge tone={key.environment === 'live' ? 'info' : 'neutral'}>{key.environment}</Badge>{' '}
            {!active && <Badge>revoked</Badge>}
          </>
        }
        actions={
          active &&
          !editing && (
            <>
              <button type="button" className="button button-secondary" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" className="button button-secondary" onClick={() => setRotating(true)}>
                Rotate
              </button>
              <button type="button" className="button button-danger-quiet" onClick={() => revoke.ask(key)}>
                Revoke
              </button>
            </>
          )
        }
      />
      {rotated && <RotatedKeyCard created={rotated} onDismiss={() => setRotated(undefined)} />}
      {!rotated && <PendingExpiry apiKey={key} />}
      {saved && !editing && (
        <div className="alert alert-success" role="status">
          Saved. The key’s new scopes, restrictions and limits apply to its next request.
        </div>
      )}
      {editing ? (
        <KeyEditForm
          apiKey={key}
          initial={formValuesOf(key)}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            setSaved(true);
            changed();
          }}
        />
      ) : (
        <KeySummary apiKey={key} />
      )}
      {/* Re-read with the key, so an event never shows before the page shows the key's new state. */}
      <KeyEvents keyId={key.id} round={key} />
      {rotating && (
        <RotateKeyDialog
          apiKey={key}
          onClose={() => setRotating(false)}
          onRotated={(created) => {
            setRotating(false);
            setSaved(false);
            setRotated(created);
            changed();
          }}
        />
      )}
      <ConfirmActionDialog action={revoke} title="Revoke this key?" confirmLabel="Revoke key" danger onDone={changed}>
        {(target) => (
          <p>
            Calls with <strong>{target.name}</strong> (<code>{target.prefix}…</code>) are refused with 401 from now on
            {target.previous_key_expires_at && Date.parse(target.previous_key_expires_at) > Date.now()
              ? ', its previous secret’s too'
              : ''}
            . This cannot be undone.
          </p>
        )}
      </ConfirmActionDialog>
    </>
  );
}

/** A rotated-out secret that still works: until when. */
function PendingExpiry({ apiKey }: { apiKey: ApiKey }) {
  const expires = apiKey.previous_key_expires_at;
  if (!expires || Date.parse(expires) <= Date.now() || apiKey.revoked_at) return null;
  return (
    <div className="alert alert-warning" role="status">
      Rotated: the previous key still works until <strong>{formatDate(expires)}</strong> ({formatIn(expires)}). Put the new key
      everywhere the previous one is used before then.
    </div>
  );
}

function KeySummary({ apiKey }: { apiKey: ApiKey }) {
  const session = useSession();
  const restrictions = apiKey.restrictions ?? {};
  const limits = apiKey.limits ?? {};
  const jwt = restrictions.jwt;
  return (
    <>
      <div className="grid grid-wide">
        <Card title="Key">
          <dl className="details">
            <dt>Name</dt>
            <dd>{apiKey.name}</dd>
            <dt>Key</dt>
            <dd>
              <code>{apiKey.prefix}…</code>
            </dd>
            <dt>Environment</dt>
            <dd>{apiKey.environment === 'live' ? 'live (mainnets)' : 'test (testnets and devnets)'}</dd>
            <dt>Scopes</dt>
            <dd>
              <div className="chips">
                {apiKey.scopes.length === scopes.length ? (
                  <span className="chip">all scopes</span>
                ) : (
                  apiKey.scopes.map((scope) => (
                    <span className="chip" key={scope}>
                      {scope}
                    </span>
                  ))
                )}
              </div>
            </dd>
            <dt>Created</dt>
            <dd>{formatDate(apiKey.created_at)}</dd>
            <dt>{apiKey.revoked_at ? 'Revoked' : 'Last used'}</dt>
            <dd>{apiKey.revoked_at ? formatDate(apiKey.revoked_at) : formatAgo(apiKey.last_used_at)}</dd>
          </dl>
        </Card>
        <Card title="Limits">
          <dl className="details">
            {limitFields.map((field) => {
              const own = limits[field.name];
              const account = session.account.limits[field.name];
              return (
                <div className="details-row" key={field.name}>
                  <dt>{field.label}</dt>
                  <dd>
                    {own === null || own === undefined ? (
                      <span className="muted">the account’s ({account === null ? 'unlimited' : formatNumber(account)})</span>
                    ) : (
                      formatNumber(own)
                    )}
                  </dd>
                </div>
              );
            })}
          </dl>
        </Card>
      </div>
      <Card title="Restrictions">
        <dl className="details">
          {listFields.map((field) => {
            const entries = restrictions[field.name] ?? [];
            return (
              <div className="details-row" key={field.name}>
                <dt>{field.label}</dt>
                <dd>
                  {entries.length === 0 ? (
                    <span className="muted">any</span>
                  ) : (
                    <ul className="plain-list">
                      {entries.map((entry) => (
                        <li key={entry}>
                          <code className="wrap-anywhere">{entry}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </div>
            );
          })}
          <dt>Signed requests (JWT)</dt>
          <dd>
            {jwt?.required ? 'required' : <span className="muted">not required</span>}
            {jwt && jwt.public_keys.length > 0 && (
              <ul className="plain-list">
                {jwt.public_keys.map((publicKey) => (
                  <li key={publicKey.id}>
                    <details>
                      <summary>
                        <code>{publicKey.id}</code> ({publicKey.alg})
                      </summary>
                      <pre className="code">{publicKey.pem}</pre>
                    </details>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      </Card>
    </>
  );
}
