import { verifyEmail } from '../api/client.ts';
import { AuthLayout } from '../layout/auth-layout.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { useSessionState } from '../session.tsx';
import { ErrorMessage } from '../ui/components.tsx';
import { useAction, useTitle } from '../ui/hooks.ts';

/**
 * `/verify-email?token=`: the landing page of the mailed link. Confirming (a click, so a mail scanner
 * that follows links does not use it up) creates the user and their account, or joins the invited one,
 * and signs in.
 */
export default function VerifyEmailPage() {
  useTitle('Confirm your email');
  const { setSession } = useSessionState();
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const action = useAction(verifyEmail);

  if (!token) {
    return (
      <AuthLayout title="Confirm your email" footer={<Link to="/sign-in">Sign in</Link>}>
        <div className="alert alert-error" role="alert">
          This page needs the link from the mail we sent you; that link is missing its token.
        </div>
      </AuthLayout>
    );
  }
  const confirm = async () => {
    const session = await action.run(token);
    if (session) {
      setSession(session);
      navigate('/keys', { replace: true });
    }
  };
  return (
    <AuthLayout
      title="Confirm your email"
      footer={
        <span>
          Link expired or used? <Link to="/sign-up">Sign up again</Link> or <Link to="/sign-in">sign in</Link>
        </span>
      }
    >
      <p>Confirm to finish: this creates your account, or joins the account you were invited to, and signs you in.</p>
      <ErrorMessage error={action.error} fields={['token']} />
      <button type="button" className="button button-primary button-block" disabled={action.busy} onClick={confirm}>
        {action.busy ? 'Confirming…' : 'Confirm my email'}
      </button>
    </AuthLayout>
  );
}
