import { type FormEvent, useState } from 'react';
import { signUp } from '../api/client.ts';
import { navigate } from '../router.tsx';
import { useSessionState } from '../session.tsx';
import { EmailField, PasswordField } from '../ui/account-fields.tsx';
import { ErrorMessage, errorFor, TextField } from '../ui/components.tsx';
import { useAction } from '../ui/hooks.ts';

/** Sign-up: open sign-up makes a new account; with an invitation token, joins the inviting account. */
export function SignUpForm({ invitation }: { invitation?: string }) {
  const { setSession } = useSessionState();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accountName, setAccountName] = useState('');
  const action = useAction(signUp);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const session = await action.run({
      email,
      password,
      ...(invitation ? { invitation } : accountName.trim() ? { account_name: accountName.trim() } : {}),
    });
    if (!session) return;
    setSession(session);
    // Joined through an invitation: its account is now the current one.
    if (invitation) navigate('/keys', { replace: true });
  };

  return (
    <form onSubmit={submit} noValidate className="form">
      <ErrorMessage error={action.error} fields={['email', 'password', 'account_name']} />
      <EmailField autoComplete="email" value={email} onValue={setEmail} error={action.error} />
      <PasswordField choosing value={password} onValue={setPassword} error={action.error} />
      {!invitation && (
        <TextField
          label="Account name (optional)"
          name="account_name"
          autoComplete="organization"
          value={accountName}
          onChange={(event) => setAccountName(event.target.value)}
          error={errorFor(action.error, 'account_name')}
        />
      )}
      <button type="submit" className="button button-primary button-block" disabled={action.busy}>
        {action.busy ? 'Creating…' : invitation ? 'Create account and join' : 'Create account'}
      </button>
    </form>
  );
}
