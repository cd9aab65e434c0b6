import type { ComponentType } from 'preact';
import { lazy } from 'preact-iso';
import type { NavItem } from '../shared/components/layout.js';
import { base } from './session.js';

/** A page of the console: its URL pattern (preact-iso syntax) and its component, loaded on demand. */
export interface ConsoleRoute {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  component: ComponentType<any>;
}

// Each page is its own chunk: the first page loads only what it shows (bpmn-js comes with diagrams).
const ProcessesPage = lazy(() => import('./pages/processes.js').then((m) => m.ProcessesPage));
const VersionPage = lazy(() => import('./pages/processes/version-page.js').then((m) => m.VersionPage));

/** Every page, first the home page. One line per page; pages own their files under `pages/`. */
export const routes: ConsoleRoute[] = [{ path: `${base}/processes`, component: ProcessesPage }];
routes.push({ path: `${base}/processes/:key/versions/:id`, component: VersionPage });

/** The main navigation. */
export const navigation: NavItem[] = [{ href: `${base}/processes`, label: 'Processes' }];
