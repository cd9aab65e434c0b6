import { ErrorBoundary, LocationProvider, Route, Router } from 'preact-iso';
import { Layout } from '../shared/components/layout.js';
import { useStore } from '../shared/store.js';
import { LoginPage } from './pages/login.js';
import { NotFoundPage } from './pages/not-found.js';
import { navigation, routes } from './routes.js';
import { base, session } from './session.js';

/** The records console: the login form until signed in, then the routed pages. */
export function App() {
  const credentials = useStore(session.credentials);
  return (
    <LocationProvider>
      {credentials === null ? (
        <LoginPage />
      ) : (
        <Layout
          title="weft records"
          nav={navigation}
          session={
            <button type="button" onClick={() => session.signOut()}>
              Log out
            </button>
          }
        >
          <ErrorBoundary>
            <Router>
              {[
                ...routes.map((route) => (
                  <Route key={route.path} path={route.path} component={route.component} />
                )),
                <Route key="home" path={`${base}/`} component={routes[0]?.component ?? NotFoundPage} />,
                <Route key="fallback" default component={NotFoundPage} />,
              ]}
            </Router>
          </ErrorBoundary>
        </Layout>
      )}
    </LocationProvider>
  );
}
