import { Store } from '../shared/store.js';
import { BearerToken, Session } from '../shared/session.js';
import {
  CookieSession,
  cookieSessionExists,
  endCookieSession,
  oidcStrategies,
  type OidcLoginStrategy,
} from './cookie-session.js';

/** A schema as `GET /api` lists it. */
export interface SchemaEntry {
  path: string;
  displayName: string;
  description: string;
  fields: number;
  hasTimeMachine: boolean;
  searchTier: number;
}

/**
 * The records console's session: an API key (sent as bearer) kept in memory, or the OIDC session
 * cookie that the service set after a provider login (nothing kept by the page).
 */
export const session = new Session<BearerToken | CookieSession>();
export const api = session.api;

/** The OIDC strategies the login page offers a button for (loaded at start-up). */
export const loginStrategies = new Store<OidcLoginStrategy[]>([]);

/** True until start-up has learnt the strategies and whether a cookie session already exists. */
export const starting = new Store(true);

/**
 * Start-up: lists the OIDC strategies and, when there are any, signs in without a key if the
 * browser holds a session cookie (e.g. just back from the provider, or after a reload).
 */
export async function start(): Promise<void> {
  try {
    const strategies = await oidcStrategies();
    loginStrategies.set(strategies);
    if (strategies.length > 0 && (await cookieSessionExists())) session.signIn(new CookieSession());
  } catch {
    // The service is unreachable: the login form stays, and logging in will say why.
  } finally {
    starting.set(false);
  }
}

/** Checks the key against `GET /api` (the schema listing) before keeping it. */
export async function logIn(apiKey: string): Promise<void> {
  const token = new BearerToken(apiKey.trim());
  const response = await fetch('/api', { headers: token.header() });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new Error(body.message ?? `The key was refused (HTTP ${response.status})`);
  }
  session.signIn(token);
}

/** Forgets the key; a cookie session is also ended on the service, so a reload stays logged out. */
export async function logOut(): Promise<void> {
  if (session.credentials.get() instanceof CookieSession) await endCookieSession();
  session.signOut();
}

/** The console's base path: every page's URL starts with it. */
export const base = '/console';
