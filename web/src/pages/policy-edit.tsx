import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { createPolicy, getPolicy, updatePolicy } from '../api/client.ts';
import { Link, navigate } from '../router.tsx';
import { Card, ErrorMessage, errorFor, Loading, PageHeader, TextArea, TextField } from '../ui/components.tsx';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';
import { NetworkFields } from '../ui/network-fields.tsx';
import { type RuleValues, ruleFields, rulesOf, valuesOf } from './policy-rules.ts';

export default function PolicyEditPage({ params }: { params: Record<string, string> }) {
  const id = params.id;
  useTitle(id ? 'Edit gas policy' : 'Create a gas policy');
  const existing = useLoad(async () => (id ? getPolicy(id) : undefined), [id]);
  const [name, setName] = useState('');
  const [chain, setChain] = useState('');
  const [network, setNetwork] = useState('');
  const [values, setValues] = useState<RuleValues>({});
  const save = useAction(async () => {
    const rules = rulesOf(values);
    return id
      ? updatePolicy(id, { name: name.trim(), rules })
      : createPolicy({ name: name.trim(), chain, ...(network ? { network } : {}), rules });
  });
  const onNetwork = useCallback((nextChain: string, nextNetwork: string) => {
    setChain(nextChain);
    setNetwork(nextNetwork);
  }, []);

  // The policy the form was filled from: until it is the loaded one, the form is not shown (it would
  // show empty fields for a render, which a quick edit could then save).
  const [filledFrom, setFilledFrom] = useState<unknown>();
  useEffect(() => {
    if (!existing.data) return;
    setName(existing.data.name);
    setValues(valuesOf(existing.data.rules));
    setFilledFrom(existing.data);
  }, [existing.data]);

  if (id && (!existing.data || filledFrom !== existing.data)) {
    return existing.error ? (
      <>
        <PageHeader title="Gas policy not found" />
        <ErrorMessage error={existing.error} />
      </>
    ) : (
      <Loading what="Loading the policy" />
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const saved = await save.run();
    if (saved) navigate(`/gas-policies/${encodeURIComponent(saved.id)}`);
  };
  const set = (field: string, value: string) => setValues((previous) => ({ ...previous, [field]: value }));
  const fields = ['name', 'chain', 'network', 'rules', ...ruleFields.map((field) => `rules.${field.name}`), 'rules.rate_limit'];

  return (
    <>
      <div className="breadcrumb">
        <Link to="/gas-policies">Gas policies</Link> /{' '}
        {id ? <Link to={`/gas-policies/${encodeURIComponent(id)}`}>{existing.data?.name}</Link> : 'New'}
      </div>
      <PageHeader title={id ? `Edit “${existing.data?.name}”` : 'Create a gas policy'} />
      <form onSubmit={submit} noValidate>
        <ErrorMessage error={save.error} fields={fields} />
        {errorFor(save.error, 'rules') && !fields.slice(4).some((field) => errorFor(save.error, field)) && (
          <div className="alert alert-error" role="alert">
            {save.error?.message}
          </div>
        )}
        <Card title="Policy">
          <div className="form-grid">
            <TextField
              label="Name"
              name="name"
              required
              maxLength={200}
              value={name}
              onChange={(event) => setName(event.target.value)}
              error={errorFor(save.error, 'name', 'Give the policy a name.')}
            />
            {id ? (
              <TextField
                label="Network"
                value={`${existing.data?.chain}/${existing.data?.network}`}
                readOnly
                hint="A policy stays on its network."
              />
            ) : (
              <NetworkFields chain={chain} network={network} onChange={onNetwork} error={save.error} />
            )}
          </div>
        </Card>
        <Card title="Rules">
          <p className="muted">Every rule is optional: an empty field does not limit.</p>
          <div className="form-grid">
            {ruleFields.map((field) => {
              const common = {
                label: field.label,
                name: `rules.${field.name}`,
                hint: field.hint,
                value: values[field.name] ?? '',
                error: errorFor(save.error, `rules.${field.name}`),
              };
              if (field.kind === 'list')
                return (
                  <TextArea key={field.name} {...common} rows={3} onChange={(event) => set(field.name, event.target.value)} />
                );
              return (
                <TextField
                  key={field.name}
                  {...common}
                  type={field.kind === 'time' ? 'datetime-local' : 'text'}
                  inputMode={field.kind === 'integer' ? 'numeric' : field.kind === 'usd' ? 'decimal' : undefined}
                  onChange={(event) => set(field.name, event.target.value)}
                />
              );
            })}
            <fieldset className={`field${errorFor(save.error, 'rules.rate_limit') ? ' field-invalid' : ''}`}>
              <legend>Rate limit</legend>
              <div className="form-grid">
                <TextField
                  label="Operations"
                  inputMode="numeric"
                  value={values['rate_limit.ops'] ?? ''}
                  onChange={(event) => set('rate_limit.ops', event.target.value)}
                />
                <TextField
                  label="Per seconds"
                  inputMode="numeric"
                  value={values['rate_limit.per_seconds'] ?? ''}
                  onChange={(event) => set('rate_limit.per_seconds', event.target.value)}
                />
              </div>
              <div className="hint">At most this many operations in any window of that many seconds.</div>
              {errorFor(save.error, 'rules.rate_limit') && (
                <div className="field-error" role="alert">
                  {errorFor(save.error, 'rules.rate_limit')}
                </div>
              )}
            </fieldset>
          </div>
          <div className="button-row">
            <button type="submit" className="button button-primary" disabled={save.busy || (!id && !chain)}>
              {save.busy ? 'Saving…' : id ? 'Save changes' : 'Create policy'}
            </button>
            <Link to={id ? `/gas-policies/${encodeURIComponent(id)}` : '/gas-policies'} className="button button-secondary">
              Cancel
            </Link>
          </div>
        </Card>
      </form>
    </>
  );
}
