import { LocationProvider } from 'preact-iso';
import { ConsoleRouter } from '../shared/components/console-router.js';
import { Layout } from '../shared/components/layout.js';
import { Loading } from '../shared/components/page.js';
import { useStore } from '../shared/store.js';
import { LogoutButton } from './components/logout-button.js';
import { LoginPage } from './pages/login.js';
import { NotFoundPage } from './pages/not-found.js';
import { navigation, routes } from './routes.js';
import { base, session, starting } from './session.js';

/**
 * The records console: while starting, a check for an OIDC session cookie; then the login form until
 * signed in, then the routed pages.
 */
export function App() {
  const credentials = useStore(session.credentials);
  const isStarting = useStore(starting);
  if (isStarting)
    return (
      <main id="main" class="login">
        <Loading />
      </main>
    );
  return (
    <LocationProvider>
      {credentials === null ? (
        <LoginPage />
      ) : (
        <Layout title="weft records" nav={navigation} session={<LogoutButton />}>
          <ConsoleRouter routes={routes} base={base} notFound={NotFoundPage} />
        </Layout>
      )}
    </LocationProvider>
  );
}
