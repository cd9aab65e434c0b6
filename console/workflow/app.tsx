import { LocationProvider } from 'preact-iso';
import { ConsoleRouter } from '../shared/components/console-router.js';
import { Layout } from '../shared/components/layout.js';
import { useStore } from '../shared/store.js';
import { LoginPage } from './pages/login.js';
import { NotFoundPage } from './pages/not-found.js';
import { navigation, routes } from './routes.js';
import { base, currentOrgId, me, session, useOrg } from './session.js';

/** The workflow console: the login form until signed in, then the routed pages. */
export function App() {
  const credentials = useStore(session.credentials);
  return (
    <LocationProvider>
      {credentials === null ? (
        <LoginPage />
      ) : (
        <Layout title="weft workflow" nav={navigation} session={<SessionControls />}>
          <ConsoleRouter routes={routes} base={base} notFound={NotFoundPage} />
        </Layout>
      )}
    </LocationProvider>
  );
}

function SessionControls() {
  const caller = useStore(me);
  const org = useOrg();
  return (
    <>
      {caller && caller.orgs.length > 0 ? (
        <label class="inline">
          <span class="muted">Organisation</span>
          <select
            value={org?.id ?? ''}
            onChange={(event) => currentOrgId.set(event.currentTarget.value)}
            aria-label="Organisation"
          >
            {caller.orgs.map((option) => (
              <option key={option.id} value={option.id}>
                {option.name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <span class="muted">{caller?.email}</span>
      <button type="button" onClick={() => session.signOut()}>
        Log out
      </button>
    </>
  );
}
