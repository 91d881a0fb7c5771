// The email and password fields of the sign-in, sign-up, password and invitation forms: one label, type,
// autocomplete hint and API field name each, wherever they appear.
import type { ApiError } from '../api/client.ts';
import { errorFor, TextField } from './components.tsx';

interface AccountFieldProps {
  value: string;
  onValue: (value: string) => void;
  /** The form's API error: shown here when it is about this field. */
  error: ApiError | undefined;
}

export function EmailField({ value, onValue, error, autoComplete }: AccountFieldProps & { autoComplete?: 'username' | 'email' }) {
  return (
    <TextField
      label="Email"
      type="email"
      name="email"
      autoComplete={autoComplete}
      required
      value={value}
      onChange={(event) => onValue(event.target.value)}
      error={errorFor(error, 'email', 'Enter an email address.')}
    />
  );
}

/** The account's password: the current one (sign-in), or a new one, with the service's length rule. */
export function PasswordField({
  value,
  onValue,
  error,
  choosing,
  label = 'Password',
  hint = '10 to 200 characters.',
}: AccountFieldProps & { choosing?: boolean; label?: string; hint?: string }) {
  return (
    <TextField
      label={label}
      type="password"
      name="password"
      autoComplete={choosing ? 'new-password' : 'current-password'}
      required
      {...(choosing ? { minLength: 10, maxLength: 200, hint } : {})}
      value={value}
      onChange={(event) => onValue(event.target.value)}
      error={errorFor(error, 'password', choosing ? 'Choose a password of 10 to 200 characters.' : 'Enter your password.')}
    />
  );
}
