import { lazy } from 'preact-iso';
import type { ConsoleRoute } from '../shared/components/console-router.js';
import type { NavItem } from '../shared/components/layout.js';
import { base } from './session.js';

const SchemasPage = lazy(() => import('./pages/schemas.js').then((m) => m.SchemasPage));
const RecordsIndexPage = lazy(() =>
  import('./pages/records/records-index.js').then((m) => m.RecordsIndexPage),
);
const RecordsRoute = lazy(() => import('./pages/records/records-route.js').then((m) => m.RecordsRoute));

/** Every page, first the home page. One line per page; pages own their files under `pages/`. */
export const routes: ConsoleRoute[] = [
  { path: `${base}/schemas`, component: SchemasPage },
  { path: `${base}/records`, component: RecordsIndexPage },
  { path: `${base}/records/:rest+`, component: RecordsRoute },
];

/** The main navigation. */
export const navigation: NavItem[] = [
  { href: `${base}/schemas`, label: 'Schemas' },
  { href: `${base}/records`, label: 'Records' },
];
