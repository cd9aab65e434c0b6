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
const InstancesPage = lazy(() => import('./pages/instances/instances-page.js').then((m) => m.InstancesPage));
const InstancePage = lazy(() => import('./pages/instances/instance-page.js').then((m) => m.InstancePage));
const IncidentsPage = lazy(() => import('./pages/instances/incidents-page.js').then((m) => m.IncidentsPage));

/** Every page, first the home page. One line per page; pages own their files under `pages/`. */
export const routes: ConsoleRoute[] = [{ path: `${base}/processes`, component: ProcessesPage }];
routes.push({ path: `${base}/instances`, component: InstancesPage });
routes.push({ path: `${base}/instances/:id`, component: InstancePage });
routes.push({ path: `${base}/incidents`, component: IncidentsPage });

/** The main navigation. */
export const navigation: NavItem[] = [{ href: `${base}/processes`, label: 'Processes' }];
navigation.push({ href: `${base}/instances`, label: 'Instances' });
navigation.push({ href: `${base}/incidents`, label: 'Incidents' });
