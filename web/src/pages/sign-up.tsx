import { AuthLayout } from '../layout/auth-layout.tsx';
import { Link } from '../router.tsx';
import { useTitle } from '../ui/hooks.ts';
import { SignUpForm } from './sign-up-form.tsx';

export default function SignUpPage() {
  useTitle('Create an account');
  return (
    <AuthLayout
      title="Create an account"
      footer={
        <span>
          Already have an account? <Link to="/sign-in">Sign in</Link>
        </span>
      }
    >
      <p className="muted">A new account starts on the free plan with you as its owner.</p>
      <SignUpForm />
    </AuthLayout>
  );
}
