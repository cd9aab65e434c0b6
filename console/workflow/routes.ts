import { lazy } from 'preact-iso';
import type { ConsoleRoute } from '../shared/components/console-router.js';
import type { NavItem } from '../shared/components/layout.js';
import { base } from './session.js';

// Each page is its own chunk: the first page loads only what it shows (bpmn-js comes with diagrams).
const ProcessesPage = lazy(() => import('./pages/processes.js').then((m) => m.ProcessesPage));
const VersionPage = lazy(() => import('./pages/processes/version-page.js').then((m) => m.VersionPage));
const InstancesPage = lazy(() => import('./pages/instances/instances-page.js').then((m) => m.InstancesPage));
const InstancePage = lazy(() => import('./pages/instances/instance-page.js').then((m) => m.InstancePage));
const IncidentsPage = lazy(() => import('./pages/instances/incidents-page.js').then((m) => m.IncidentsPage));
const DecisionsPage = lazy(() => import('./pages/decisions/decisions-page.js').then((m) => m.DecisionsPage));
const DecisionPage = lazy(() => import('./pages/decisions/decision-page.js').then((m) => m.DecisionPage));
const EventsPage = lazy(() => import('./pages/events/events-page.js').then((m) => m.EventsPage));
const TasksPage = lazy(() => import('./pages/tasks/tasks-page.js').then((m) => m.TasksPage));
const TaskPage = lazy(() => import('./pages/tasks/task-page.js').then((m) => m.TaskPage));
const ScriptsPage = lazy(() => import('./pages/scripts/scripts-page.js').then((m) => m.ScriptsPage));

/** Every page, first the home page. One line per page; pages own their files under `pages/`. */
export const routes: ConsoleRoute[] = [
  { path: `${base}/processes`, component: ProcessesPage },
  { path: `${base}/processes/:key/versions/:id`, component: VersionPage },
  { path: `${base}/instances`, component: InstancesPage },
  { path: `${base}/instances/:id`, component: InstancePage },
  { path: `${base}/incidents`, component: IncidentsPage },
  { path: `${base}/tasks`, component: TasksPage },
  { path: `${base}/tasks/:id`, component: TaskPage },
  { path: `${base}/decisions`, component: DecisionsPage },
  { path: `${base}/decisions/:key`, component: DecisionPage },
  { path: `${base}/events`, component: EventsPage },
  { path: `${base}/scripts`, component: ScriptsPage },
];

/** The main navigation. */
export const navigation: NavItem[] = [
  { href: `${base}/processes`, label: 'Processes' },
  { href: `${base}/instances`, label: 'Instances' },
  { href: `${base}/incidents`, label: 'Incidents' },
  { href: `${base}/tasks`, label: 'Tasks' },
  { href: `${base}/decisions`, label: 'Decisions' },
  { href: `${base}/events`, label: 'Messages and signals' },
  { href: `${base}/scripts`, label: 'Scripts' },
];
