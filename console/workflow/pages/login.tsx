import { LoginForm } from '../../shared/components/login-form.js';
import { fieldText } from '../../shared/form-data.js';
import { useStore } from '../../shared/store.js';
import { logIn, session } from '../session.js';

/** Email and password; the JWT stays in memory. Shown in place of any page until signed in. */
export function LoginPage() {
  const expired = useStore(session.expired);
  return (
    <LoginForm
      title="Log in to weft workflow"
      onSubmit={(form) => logIn(fieldText(form, 'email'), fieldText(form, 'password'))}
    >
      {expired ? <p class="muted">Your session ended; log in again to continue.</p> : null}
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
    </LoginForm>
  );
}
