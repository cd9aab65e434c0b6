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
