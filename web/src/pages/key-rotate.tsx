import { type FormEvent, useState } from 'react';
import { rotateKey } from '../api/client.ts';
import type { ApiKey, CreatedApiKey } from '../api/types.ts';
import { Card, ErrorMessage, SecretOnce, SelectField } from '../ui/components.tsx';
import { Dialog, DialogButtons } from '../ui/dialog.tsx';
import { formatDate, formatIn } from '../ui/format.ts';
import { useAction } from '../ui/hooks.ts';

/** The grace choices: how long the current secret keeps working after the rotation (the API takes 0 to 7 days). */
export const graceOptions = [
  { seconds: 0, label: 'Now (the current key stops working at once)' },
  { seconds: 3600, label: 'In 1 hour' },
  { seconds: 86_400, label: 'In 24 hours' },
  { seconds: 604_800, label: 'In 7 days' },
];
const defaultGrace = 86_400;

/** Asks when the current secret should stop working, then rotates. */
export function RotateKeyDialog({
  apiKey,
  onClose,
  onRotated,
}: {
  apiKey: ApiKey;
  onClose: () => void;
  onRotated: (created: CreatedApiKey) => void;
}) {
  const [grace, setGrace] = useState(defaultGrace);
  const rotate = useAction(rotateKey);
  const submit = async (_event: FormEvent) => {
    const created = await rotate.run(apiKey.id, { grace_s: grace });
    if (created) onRotated(created);
  };
  return (
    <Dialog
      title="Rotate this key?"
      onClose={onClose}
      onSubmit={submit}
      footer={<DialogButtons onCancel={onClose} label="Rotate key" busyLabel="Rotating…" busy={rotate.busy} />}
    >
      <p>
        <strong>{apiKey.name}</strong> gets a new secret. It keeps its id, name, scopes, restrictions, limits and usage history;
        the current secret (<code>{apiKey.prefix}…</code>) keeps working until the time you choose, then gets 401.
      </p>
      <SelectField
        label="The current key stops working"
        name="grace_s"
        value={String(grace)}
        onChange={(event) => setGrace(Number(event.target.value))}
        hint="Time to put the new key everywhere the current one is used."
      >
        {graceOptions.map((option) => (
          <option key={option.seconds} value={option.seconds}>
            {option.label}
          </option>
        ))}
      </SelectField>
      <ErrorMessage error={rotate.error} />
    </Dialog>
  );
}

/** The new secret of a rotation, shown once, and when the old one stops working. */
export function RotatedKeyCard({ created, onDismiss }: { created: CreatedApiKey; onDismiss: () => void }) {
  const expires = created.previous_key_expires_at;
  const stillWorks = !!expires && Date.parse(expires) > Date.now();
  return (
    <Card title={`Key “${created.name}” rotated`} className="card-highlight">
      <SecretOnce
        label="Your new API key"
        value={created.key}
        warning="Copy this key now and keep it somewhere safe: you will not see it again."
      />
      <p className="key-rotated-expiry">
        {stillWorks ? (
          <>
            The previous key keeps working until <strong>{formatDate(expires)}</strong> ({formatIn(expires)}), then it is refused.
          </>
        ) : (
          'The previous key no longer works.'
        )}
      </p>
      <div className="button-row">
        <button type="button" className="button button-secondary" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
    </Card>
  );
}
