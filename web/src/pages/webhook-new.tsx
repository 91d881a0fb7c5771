import { type FormEvent, useCallback, useState } from 'react';
import { createWebhook } from '../api/client.ts';
import { Link, navigate } from '../router.tsx';
import { Card, ErrorMessage, errorFor, PageHeader, SelectField, TextArea, TextField } from '../ui/components.tsx';
import { hold } from '../ui/flash.ts';
import { useAction, useTitle } from '../ui/hooks.ts';
import { numberOrText, parseList } from '../ui/lists.ts';
import { NetworkFields } from '../ui/network-fields.tsx';
import { type ConfigKey, eventTypes, keyInfo } from './webhook-types.ts';

/** The filter as the API takes it, from what was typed (empty fields left out). */
export function configOf(keys: readonly ConfigKey[], values: Partial<Record<ConfigKey, string>>, topics: string[]) {
  const config: Record<string, unknown> = {};
  for (const key of keys) {
    if (key === 'topics') {
      const positions = topics.map((text) => {
        const entries = parseList(text);
        return entries.length === 0 ? null : entries.length === 1 ? entries[0] : entries;
      });
      while (positions.length && positions[positions.length - 1] === null) positions.pop();
      if (positions.length) config.topics = positions;
      continue;
    }
    const text = values[key]?.trim() ?? '';
    if (!text) continue;
    if (key === 'confirmations') config[key] = numberOrText(text);
    else if (key === 'min_value') config[key] = text;
    else config[key] = parseList(text);
  }
  return config;
}

export default function NewWebhookPage() {
  useTitle('Create a webhook');
  const [url, setUrl] = useState('');
  const [chain, setChain] = useState('');
  const [network, setNetwork] = useState('');
  const [eventType, setEventType] = useState('address_activity');
  const [format, setFormat] = useState<'snake_case' | 'camelCase'>('snake_case');
  const [values, setValues] = useState<Partial<Record<ConfigKey, string>>>({});
  const [topics, setTopics] = useState(['', '', '', '']);
  const create = useAction(createWebhook);
  const type = eventTypes[eventType] ?? eventTypes.address_activity!;
  const onNetwork = useCallback((nextChain: string, nextNetwork: string) => {
    setChain(nextChain);
    setNetwork(nextNetwork);
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const webhook = await create.run({
      url: url.trim(),
      chain,
      ...(network ? { network } : {}),
      event_type: eventType,
      config: configOf(type.keys, values, topics),
      payload_format: format,
    });
    if (!webhook) return;
    if (webhook.signing_secret) hold(`secret:${webhook.id}`, webhook.signing_secret);
    navigate(`/webhooks/${encodeURIComponent(webhook.id)}`);
  };

  const fields = ['url', 'chain', 'network', 'event_type', 'payload_format', ...type.keys.map((key) => `config.${key}`)];
  return (
    <>
      <div className="breadcrumb">
        <Link to="/webhooks">Webhooks</Link> / New
      </div>
      <PageHeader title="Create a webhook" />
      <form onSubmit={submit} noValidate>
        <Card title="Endpoint">
          <ErrorMessage error={create.error} fields={fields} />
          <div className="form-grid">
            <TextField
              label="Endpoint URL"
              name="url"
              type="url"
              required
              placeholder="https://example.com/hooks/blockyard"
              hint="HTTPS (development mode also takes http and loopback addresses)."
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              error={errorFor(create.error, 'url', 'Give the URL the events are sent to.')}
            />
            <NetworkFields chain={chain} network={network} onChange={onNetwork} error={create.error} />
            <SelectField
              label="Payload format"
              name="payload_format"
              value={format}
              onChange={(event) => setFormat(event.target.value as 'snake_case' | 'camelCase')}
              error={errorFor(create.error, 'payload_format')}
            >
              <option value="snake_case">snake_case (Variant A)</option>
              <option value="camelCase">camelCase (Variant B)</option>
            </SelectField>
          </div>
        </Card>
        <Card title="Event">
          <div className="form-grid">
            <SelectField
              label="Event type"
              name="event_type"
              value={eventType}
              hint={type.description}
              onChange={(event) => setEventType(event.target.value)}
              error={errorFor(create.error, 'event_type')}
            >
              {Object.entries(eventTypes).map(([name, info]) => (
                <option key={name} value={name}>
                  {info.label} ({name})
                </option>
              ))}
            </SelectField>
            {type.needsOneOf && (
              <p className="hint section-note">
                Needs at least one entry in {type.needsOneOf.map((key) => keyInfo[key].label.toLowerCase()).join(' or ')}.
              </p>
            )}
            <h3 className="section-title">Filter</h3>
            {type.keys.map((key) => {
              const info = keyInfo[key];
              const error = errorFor(create.error, `config.${key}`);
              if (key === 'topics') {
                return (
                  <fieldset key={key} className={`field${error ? ' field-invalid' : ''}`}>
                    <legend>{info.label}</legend>
                    <div className="form-grid">
                      {topics.map((topic, index) => (
                        <TextField
                          // biome-ignore lint/suspicious/noArrayIndexKey: the four topic positions
                          key={index}
                          label={`Topic ${index}`}
                          className="mono"
                          placeholder="any"
                          value={topic}
                          onChange={(event) =>
                            setTopics((previous) => previous.map((old, at) => (at === index ? event.target.value : old)))
                          }
                        />
                      ))}
                    </div>
                    <div className="hint">{info.hint}</div>
                    {error && (
                      <div className="field-error" role="alert">
                        {error}
                      </div>
                    )}
                  </fieldset>
                );
              }
              const common = {
                label: `${info.label}${type.needsOneOf?.includes(key) ? ' (one of these is required)' : ''}`,
                name: `config.${key}`,
                hint: info.hint,
                placeholder: info.placeholder,
                value: values[key] ?? '',
                error,
              };
              return info.list ? (
                <TextArea
                  key={key}
                  {...common}
                  rows={3}
                  onChange={(event) => setValues((previous) => ({ ...previous, [key]: event.target.value }))}
                />
              ) : (
                <TextField
                  key={key}
                  {...common}
                  inputMode="numeric"
                  onChange={(event) => setValues((previous) => ({ ...previous, [key]: event.target.value }))}
                />
              );
            })}
          </div>
          <div className="button-row">
            <button type="submit" className="button button-primary" disabled={create.busy || !chain}>
              {create.busy ? 'Creating…' : 'Create webhook'}
            </button>
            <Link to="/webhooks" className="button button-secondary">
              Cancel
            </Link>
          </div>
        </Card>
      </form>
    </>
  );
}
