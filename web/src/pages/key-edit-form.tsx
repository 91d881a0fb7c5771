import { type FormEvent, useEffect, useRef, useState } from 'react';
import { updateKey } from '../api/client.ts';
import type { ApiKey, JwtAlgorithm } from '../api/types.ts';
import { Card, ErrorMessage, SelectField, TextArea, TextField } from '../ui/components.tsx';
import { useAction } from '../ui/hooks.ts';
import { toggled } from '../ui/lists.ts';
import { ScopeFields } from '../ui/scope-fields.tsx';
import {
  type KeyFormValues,
  type ListName,
  limitFields,
  listFields,
  type PublicKeyValues,
  patchOf,
  placedError,
  type SentLines,
} from './key-form-values.ts';

/** The key's name, scopes, restrictions and limits as a form, saved with one PATCH; the API's 400 shown at its field. */
export function KeyEditForm({
  apiKey,
  initial,
  onSaved,
  onCancel,
}: {
  apiKey: ApiKey;
  initial: KeyFormValues;
  onSaved: (key: ApiKey) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<KeyFormValues>(initial);
  const [sentLines, setSentLines] = useState<SentLines>();
  const save = useAction(updateKey);
  const placed = placedError(save.error, sentLines);
  const errorAt = (field: string) => (placed?.field === field ? placed.message : undefined);
  const form = useRef<HTMLFormElement>(null);
  // A refused save takes the keyboard (and the view) to the field to change.
  useEffect(() => {
    if (save.error) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [save.error]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { body, lines } = patchOf(values);
    setSentLines(lines);
    const saved = await save.run(apiKey.id, body);
    if (saved) onSaved(saved);
  };
  const setList = (name: ListName, text: string) =>
    setValues((previous) => ({ ...previous, lists: { ...previous.lists, [name]: text } }));
  const setPublicKey = (index: number, change: Partial<PublicKeyValues>) =>
    setValues((previous) => ({
      ...previous,
      publicKeys: previous.publicKeys.map((entry, at) => (at === index ? { ...entry, ...change } : entry)),
    }));
  const addPublicKey = () =>
    setValues((previous) => ({ ...previous, publicKeys: [...previous.publicKeys, { id: '', alg: 'RS256', pem: '' }] }));
  const removePublicKey = (index: number) =>
    setValues((previous) => ({ ...previous, publicKeys: previous.publicKeys.filter((_, at) => at !== index) }));

  return (
    <form ref={form} onSubmit={submit} noValidate aria-label="Edit the key">
      {save.error && !placed && <ErrorMessage error={save.error} />}
      {placed && (
        <div className="alert alert-error" role="status">
          Not saved: one of the fields below needs a change.
        </div>
      )}
      <Card title="Key">
        <div className="form">
          <TextField
            label="Name"
            name="name"
            required
            maxLength={200}
            value={values.name}
            onChange={(event) => setValues((previous) => ({ ...previous, name: event.target.value }))}
            error={errorAt('name')}
          />
          <ScopeFields
            chosen={values.scopes}
            onToggle={(scope) => setValues((previous) => ({ ...previous, scopes: toggled(previous.scopes, scope) }))}
            error={errorAt('scopes')}
          />
        </div>
      </Card>
      <Card title="Restrictions">
        <p className="muted">A request from elsewhere, or a call the lists do not allow, is refused with 403.</p>
        <div className="form-grid key-lists">
          {listFields.map((field) => (
            <TextArea
              key={field.name}
              label={field.label}
              name={`restrictions.${field.name}`}
              hint={field.hint}
              placeholder={field.placeholder}
              rows={4}
              spellCheck={false}
              autoCapitalize="off"
              className="mono-field"
              value={values.lists[field.name]}
              onChange={(event) => setList(field.name, event.target.value)}
              error={errorAt(field.name)}
            />
          ))}
        </div>
        <SignedRequestFields
          values={values}
          errorAt={errorAt}
          onRequired={(jwtRequired) => setValues((previous) => ({ ...previous, jwtRequired }))}
          onChange={setPublicKey}
          onAdd={addPublicKey}
          onRemove={removePublicKey}
        />
      </Card>
      <Card title="Limits">
        <p className="muted">The key’s own limits, below its account’s (the lower wins). Empty: the account’s limit alone.</p>
        <div className="form-grid">
          {limitFields.map((field) => (
            <TextField
              key={field.name}
              label={field.label}
              name={`limits.${field.name}`}
              inputMode="numeric"
              value={values.limits[field.name]}
              onChange={(event) =>
                setValues((previous) => ({ ...previous, limits: { ...previous.limits, [field.name]: event.target.value } }))
              }
              error={errorAt(field.name)}
            />
          ))}
        </div>
        {errorAt('limits') && (
          <div className="field-error" role="alert">
            {errorAt('limits')}
          </div>
        )}
        <div className="button-row">
          <button type="submit" className="button button-primary" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save changes'}
          </button>
          <button type="button" className="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </Card>
    </form>
  );
}

function SignedRequestFields({
  values,
  errorAt,
  onRequired,
  onChange,
  onAdd,
  onRemove,
}: {
  values: KeyFormValues;
  errorAt: (field: string) => string | undefined;
  onRequired: (required: boolean) => void;
  onChange: (index: number, change: Partial<PublicKeyValues>) => void;
  onAdd: () => void;
  onRemove: (index: number) => void;
}) {
  const jwtError = errorAt('jwt');
  return (
    <fieldset className={`field key-jwt${jwtError ? ' field-invalid' : ''}`}>
      <legend>Signed requests (JWT)</legend>
      <div>
        <label className="checkbox">
          <input
            type="checkbox"
            name="restrictions.jwt.required"
            checked={values.jwtRequired}
            onChange={(event) => onRequired(event.target.checked)}
          />
          <span>
            Require <code>Authorization: Bearer &lt;JWT&gt;</code> besides the key, signed by one of these public keys
            <span className="muted"> (the token’s kid names the key)</span>
          </span>
        </label>
      </div>
      {values.publicKeys.map((entry, index) => (
        // The list is edited in place and has no ids of its own until saved.
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are added and removed by index
        <div className="key-public-key" key={index}>
          <div className="form-grid">
            <TextField
              label={`Public key ${index + 1}: id (kid)`}
              name={`restrictions.jwt.public_keys.${index}.id`}
              value={entry.id}
              onChange={(event) => onChange(index, { id: event.target.value })}
              error={errorAt(`publicKeys.${index}.id`)}
            />
            <SelectField
              label={`Public key ${index + 1}: algorithm`}
              name={`restrictions.jwt.public_keys.${index}.alg`}
              value={entry.alg}
              onChange={(event) => onChange(index, { alg: event.target.value as JwtAlgorithm })}
              error={errorAt(`publicKeys.${index}.alg`)}
            >
              <option value="RS256">RS256 (RSA)</option>
              <option value="ES256">ES256 (ECDSA P-256)</option>
            </SelectField>
          </div>
          <TextArea
            label={`Public key ${index + 1}: PEM`}
            name={`restrictions.jwt.public_keys.${index}.pem`}
            rows={5}
            spellCheck={false}
            className="mono-field"
            placeholder={'-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----'}
            value={entry.pem}
            onChange={(event) => onChange(index, { pem: event.target.value })}
            error={errorAt(`publicKeys.${index}.pem`) ?? errorAt(`publicKeys.${index}`)}
          />
          <button type="button" className="button button-danger-quiet button-small" onClick={() => onRemove(index)}>
            Remove public key {index + 1}
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="button button-secondary button-small" onClick={onAdd}>
          Add a public key
        </button>
      </div>
      {jwtError && (
        <div className="field-error" role="alert">
          {jwtError}
        </div>
      )}
    </fieldset>
  );
}
