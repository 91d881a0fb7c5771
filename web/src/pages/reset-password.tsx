import { type FormEvent, useState } from 'react';
import { confirmPasswordReset } from '../api/client.ts';
import { AuthLayout } from '../layout/auth-layout.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { useSessionState } from '../session.tsx';
import { PasswordField } from '../ui/account-fields.tsx';
import { ErrorMessage, TextField } from '../ui/components.tsx';
import { useAction, useTitle } from '../ui/hooks.ts';

export default function ResetPasswordPage() {
  useTitle('Choose a new password');
  const { setSession } = useSessionState();
  const token = useLocation().query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const action = useAction(confirmPasswordReset);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== repeat);
    if (password !== repeat) return;
    const session = await action.run({ token, password });
    if (session) {
      setSession(session);
      navigate('/keys', { replace: true });
    }
  };

  if (!token) {
    return (
      <AuthLayout title="Choose a new password" footer={<Link to="/forgot-password">Ask for a new link</Link>}>
        <div className="alert alert-error" role="alert">
          This page needs the link from the password-reset email; that link is missing its token.
        </div>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password" footer={<Link to="/forgot-password">Ask for a new link</Link>}>
      <form onSubmit={submit} noValidate className="form">
        <ErrorMessage error={action.error} fields={['password']} />
        <PasswordField
          choosing
          label="New password"
          hint="10 to 200 characters. Signing in elsewhere ends once you save it."
          value={password}
          onValue={setPassword}
          error={action.error}
        />
        <TextField
          label="Repeat the new password"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(event) => setRepeat(event.target.value)}
          error={mismatch ? 'The two passwords differ.' : undefined}
        />
        <button type="submit" className="button button-primary button-block" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save and sign in'}
        </button>
      </form>
    </AuthLayout>
  );
}
