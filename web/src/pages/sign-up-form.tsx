import { type FormEvent, useState } from 'react';
import { signUp } from '../api/client.ts';
import { EmailField, PasswordField } from '../ui/account-fields.tsx';
import { ErrorMessage, errorFor, TextField } from '../ui/components.tsx';
import { useAction } from '../ui/hooks.ts';

/** What the sign-up pages show once the mail is sent: the link in it finishes the sign-up. */
export function CheckYourEmail({ email, what }: { email: string; what: string }) {
  return (
    <div className="alert alert-success" role="status">
      <strong>Check your email.</strong> We sent a link to {email}. Open it within 24 hours to {what}. If that address already has
      an account, the mail says how to sign in instead.
    </div>
  );
}

/**
 * Sign-up: open sign-up makes a new account; with an invitation token, joins the inviting account.
 * Either way nothing exists until the link mailed to the address is opened.
 */
export function SignUpForm({ invitation }: { invitation?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accountName, setAccountName] = useState('');
  const [sentTo, setSentTo] = useState<string | undefined>();
  const action = useAction(signUp);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const sent = await action.run({
      email,
      password,
      ...(invitation ? { invitation } : accountName.trim() ? { account_name: accountName.trim() } : {}),
    });
    if (sent) setSentTo(sent.email);
  };

  if (sentTo) {
    return <CheckYourEmail email={sentTo} what={invitation ? 'finish joining the account' : 'finish creating your account'} />;
  }
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
          error={errorFor(action.error, 'account_name', 'Give the account a name, or leave the field out.')}
        />
      )}
      <button type="submit" className="button button-primary button-block" disabled={action.busy}>
        {action.busy ? 'Creating…' : invitation ? 'Create account and join' : 'Create account'}
      </button>
    </form>
  );
}
