import { BearerToken, Session } from '../shared/session.js';

/** A schema as `GET /api` lists it. */
export interface SchemaEntry {
  path: string;
  displayName: string;
  description: string;
  fields: number;
  hasTimeMachine: boolean;
  searchTier: number;
}

/** The records console's session: an API key (sent as bearer) in memory. */
export const session = new Session<BearerToken>();
export const api = session.api;

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

/** The console's base path: every page's URL starts with it. */
export const base = '/console';
