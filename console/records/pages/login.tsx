import { LoginForm } from '../../shared/components/login-form.js';
import { fieldText } from '../../shared/form-data.js';
import { useStore } from '../../shared/store.js';
import { OidcLoginButtons } from '../components/oidc-login-buttons.js';
import { logIn, session } from '../session.js';

/**
 * An OIDC login per configured strategy (session cookie), or an API key (kept in memory only).
 * Shown in place of any page until signed in.
 */
export function LoginPage() {
  const expired = useStore(session.expired);
  return (
    <LoginForm title="Log in to weft records" onSubmit={(form) => logIn(fieldText(form, 'api_key'))}>
      {expired ? <p class="muted">Your session ended; log in again to continue.</p> : null}
      <OidcLoginButtons />
      <label>
        API key
        <input name="api_key" type="password" autoComplete="off" required />
      </label>
    </LoginForm>
  );
}
