import type { ComponentType } from 'preact';
import { ErrorBoundary, Route, Router } from 'preact-iso';

/** A page of a console: its URL pattern (preact-iso syntax) and its component, loaded on demand. */
export interface ConsoleRoute {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  component: ComponentType<any>;
}

/**
 * The pages of a console: each route, the first one also at `<base>/`, and `notFound` for any
 * other path.
 */
export function ConsoleRouter(props: { routes: ConsoleRoute[]; base: string; notFound: ComponentType }) {
  const home = props.routes[0]?.component ?? props.notFound;
  return (
    <ErrorBoundary>
      <Router>
        {[
          ...props.routes.map((route) => (
            <Route key={route.path} path={route.path} component={route.component} />
          )),
          <Route key="home" path={`${props.base}/`} component={home} />,
          <Route key="fallback" default component={props.notFound} />,
        ]}
      </Router>
    </ErrorBoundary>
  );
}
