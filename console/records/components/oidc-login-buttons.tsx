import { useStore } from '../../shared/store.js';
import { oidcLoginUrl } from '../cookie-session.js';
import { loginStrategies } from '../session.js';

/**
 * One "Log in with …" button per OIDC strategy. Each is a full-page navigation to the service's
 * login route, with the current console path and query as `next`, so that after the provider the
 * user is back on the page they opened (a deep link keeps working).
 */
export function OidcLoginButtons() {
  const strategies = useStore(loginStrategies);
  if (strategies.length === 0) return null;
  return (
    <>
      <div class="oidc-logins">
        {strategies.map((strategy) => (
          <button
            key={strategy.name}
            type="button"
            onClick={() => {
              const { pathname, search, hash } = window.location;
              window.location.assign(oidcLoginUrl(strategy.name, `${pathname}${search}${hash}`));
            }}
          >
            Log in with {strategy.displayName ?? strategy.name}
          </button>
        ))}
      </div>
      <p class="muted oidc-or">or with an API key</p>
    </>
  );
}
