import { type FormEvent, useState } from 'react';
import { requestPasswordReset } from '../api/client.ts';
import { AuthLayout } from '../layout/auth-layout.tsx';
import { Link } from '../router.tsx';
import { EmailField } from '../ui/account-fields.tsx';
import { ErrorMessage } from '../ui/components.tsx';
import { useAction, useTitle } from '../ui/hooks.ts';

export default function ForgotPasswordPage() {
  useTitle('Reset your password');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction(requestPasswordReset);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await action.run(email);
    setSent(true);
  };

  return (
    <AuthLayout title="Reset your password" footer={<Link to="/sign-in">Back to sign in</Link>}>
      {sent && !action.error ? (
        <div className="alert alert-success" role="status">
          If an account uses {email}, a link to choose a new password is on its way. It works once, for one hour.
        </div>
      ) : (
        <form onSubmit={submit} noValidate className="form">
          <p className="muted">Give the email you sign in with; we send it a link to choose a new password.</p>
          <ErrorMessage error={action.error} fields={['email']} />
          <EmailField autoComplete="email" value={email} onValue={setEmail} error={action.error} />
          <button type="submit" className="button button-primary button-block" disabled={action.busy}>
            {action.busy ? 'Sending…' : 'Send the link'}
          </button>
        </form>
      )}
    </AuthLayout>
  );
}
