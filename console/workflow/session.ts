import { BearerToken, Session } from '../shared/session.js';
import { Store, useStore } from '../shared/store.js';

/** One org of the caller, as `GET /api/v1/me` lists it. */
export interface MeOrg {
  id: string;
  name: string;
  slug: string;
  roles: string[];
}

/** `GET /api/v1/me`. */
export interface Me {
  id: string;
  email: string;
  auth_provider: string;
  global_roles: string[];
  orgs: MeOrg[];
}

/** The workflow console's session: a JWT in memory, the caller from /me, and the chosen org. */
export const session = new Session<BearerToken>();
export const api = session.api;
export const me = new Store<Me | null>(null);
export const currentOrgId = new Store<string | null>(null);

/** Logs in with email and password, then loads /me and picks the first org. */
export async function logIn(email: string, password: string): Promise<void> {
  const answer = await api.post<{ access_token: string }>('/api/v1/auth/login', { email, password });
  const token = new BearerToken(answer.access_token);
  const caller = await fetchMe(token);
  me.set(caller);
  const remembered = currentOrgId.get();
  if (remembered === null || !caller.orgs.some((org) => org.id === remembered))
    currentOrgId.set(caller.orgs[0]?.id ?? null);
  session.signIn(token);
}

/**
 * The caller from /me. A PlatformAdmin belongs to no org yet may work in every one, so its org
 * switcher also lists the orgs of `GET /api/v1/orgs` (with no org role of its own).
 */
async function fetchMe(token: BearerToken): Promise<Me> {
  const caller = await getJson<Me>('/api/v1/me', token, 'your profile');
  if (!caller.global_roles.includes('PlatformAdmin')) return caller;
  const all = await getJson<Omit<MeOrg, 'roles'>[]>('/api/v1/orgs', token, 'the organisations');
  const others = all.filter((org) => !caller.orgs.some((member) => member.id === org.id));
  return { ...caller, orgs: [...caller.orgs, ...others.map((org) => ({ ...org, roles: [] }))] };
}

async function getJson<T>(path: string, token: BearerToken, what: string): Promise<T> {
  const response = await fetch(path, { headers: token.header() });
  if (!response.ok) throw new Error(`Could not load ${what} (HTTP ${response.status})`);
  return (await response.json()) as T;
}

/** The org the console works in (the switcher changes it); null when the caller has none. */
export function useOrg(): MeOrg | null {
  const caller = useStore(me);
  const id = useStore(currentOrgId);
  return caller?.orgs.find((org) => org.id === id) ?? null;
}

/** The console's base path: every page's URL starts with it. */
export const base = '/console';
