import { type FormEvent, useState } from 'react';
import { signIn } from '../api/client.ts';
import { AuthLayout } from '../layout/auth-layout.tsx';
import { Link, useLocation } from '../router.tsx';
import { useSessionState } from '../session.tsx';
import { EmailField, PasswordField } from '../ui/account-fields.tsx';
import { ErrorMessage } from '../ui/components.tsx';
import { useAction, useTitle } from '../ui/hooks.ts';

export default function SignInPage() {
  useTitle('Sign in');
  const { setSession } = useSessionState();
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction(signIn);
  const next = query.get('next');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const session = await action.run({ email, password });
    if (session) setSession(session);
  };

  return (
    <AuthLayout
      title="Sign in"
      footer={
        <>
          <Link to="/forgot-password">Forgot your password?</Link>
          <span>
            New here? <Link to={`/sign-up${next ? `?next=${encodeURIComponent(next)}` : ''}`}>Create an account</Link>
          </span>
        </>
      }
    >
      {query.get('link') === 'expired' && (
        <div className="alert alert-warning" role="alert">
          That sign-in link was already used or has expired. Sign in with your email and password, or start the service again for
          a new link.
        </div>
      )}
      <form onSubmit={submit} noValidate className="form">
        <ErrorMessage error={action.error} fields={['email', 'password']} />
        <EmailField autoComplete="username" value={email} onValue={setEmail} error={action.error} />
        <PasswordField value={password} onValue={setPassword} error={action.error} />
        <button type="submit" className="button button-primary button-block" disabled={action.busy}>
          {action.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </AuthLayout>
  );
}
