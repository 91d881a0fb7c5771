import { useState } from 'react';
import { acceptInvitation } from '../api/client.ts';
import { AuthLayout } from '../layout/auth-layout.tsx';
import { Link, useLocation } from '../router.tsx';
import { useSessionState } from '../session.tsx';
import { ErrorMessage } from '../ui/components.tsx';
import { useAction, useTitle } from '../ui/hooks.ts';
import { CheckYourEmail, SignUpForm } from './sign-up-form.tsx';

/** `/invite?token=`: signed out, sign up into the inviting account; signed in, accept into this user. */
export default function InvitePage() {
  useTitle('Invitation');
  const { session } = useSessionState();
  const { path, query } = useLocation();
  const token = query.get('token') ?? '';
  const action = useAction(acceptInvitation);
  const [sentTo, setSentTo] = useState<string | undefined>();
  const here = `${path}?token=${encodeURIComponent(token)}`;

  if (!token) {
    return (
      <AuthLayout title="Invitation" footer={<Link to="/sign-in">Sign in</Link>}>
        <div className="alert alert-error" role="alert">
          This page needs the invitation link you were sent; that link is missing its token.
        </div>
      </AuthLayout>
    );
  }
  if (session) {
    const accept = async () => {
      const sent = await action.run(token);
      if (sent) setSentTo(sent.email);
    };
    if (sentTo) {
      return (
        <AuthLayout title="Accept the invitation" footer={<Link to="/keys">Back to the dashboard</Link>}>
          <CheckYourEmail email={sentTo} what="finish joining the account" />
        </AuthLayout>
      );
    }
    return (
      <AuthLayout title="Accept the invitation">
        <p>
          You are signed in as <strong>{session.user.email}</strong>. Accepting mails a link to that address; opening it adds the
          inviting account to your accounts and switches to it.
        </p>
        <ErrorMessage error={action.error} />
        <div className="button-row">
          <button type="button" className="button button-primary" disabled={action.busy} onClick={accept}>
            {action.busy ? 'Joining…' : 'Accept the invitation'}
          </button>
          <Link to="/keys" className="button button-secondary">
            Not now
          </Link>
        </div>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout
      title="Join the account"
      footer={
        <span>
          Already have an account? <Link to={`/sign-in?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>
        </span>
      }
    >
      <p className="muted">You were invited to a Blockyard account. Create your user to join it.</p>
      <SignUpForm invitation={token} />
    </AuthLayout>
  );
}
