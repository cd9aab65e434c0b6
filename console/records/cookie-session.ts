import type { Credentials } from '../shared/api.js';

/**
 * The OIDC browser session: the service's HttpOnly `weft_session` cookie, which the page cannot
 * read and the browser sends with every same-origin fetch, so no header is added.
 */
export class CookieSession implements Credentials {
  header(): Record<string, string> {
    return {};
  }
}

/** An OIDC strategy as `GET /api/auth/strategies` lists it. */
export interface OidcLoginStrategy {
  name: string;
  displayName?: string;
}

/** The OIDC strategies the service offers (none when it cannot tell). */
export async function oidcStrategies(): Promise<OidcLoginStrategy[]> {
  const response = await fetch('/api/auth/strategies', { headers: { accept: 'application/json' } });
  if (!response.ok) return [];
  const body = (await response.json()) as { oidc?: OidcLoginStrategy[] };
  return body.oidc ?? [];
}

/** Whether the browser already holds a session cookie: the schema listing answers without a header. */
export async function cookieSessionExists(): Promise<boolean> {
  const response = await fetch('/api', { headers: { accept: 'application/json' } });
  return response.ok;
}

/**
 * Where "Log in with …" goes: the service's login route, which returns to `next` (the console page
 * the user is on) once the provider has signed them in.
 */
export function oidcLoginUrl(strategy: string, next: string): string {
  return `/api/auth/login?${new URLSearchParams({ strategy, next }).toString()}`;
}

/** Ends the cookie session on the service (revoked there, cookie cleared). */
export async function endCookieSession(): Promise<void> {
  const response = await fetch('/api/auth/logout', { method: 'POST' });
  if (!response.ok) throw new Error(`Logging out failed (HTTP ${response.status})`);
}
