import type pg from 'pg';
import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import { quoteLiteral } from '../schemas/identifiers.js';
import type { Identity } from '../types.js';
import { apiRole } from './database-roles.js';

/**
 * The access session of a request on a schema with row security: inside the request's transaction
 * the role becomes `weft_records_api` (so RLS applies even when we connect as an owner or a
 * superuser) and the caller is published as transaction-local settings that row filters and
 * policies read: `weft.actor_id` (text), `weft.roles` (a text[] literal), `weft.attributes` and
 * `weft.scope` (JSON objects). `SET LOCAL` ends with the transaction, so a pooled
 * connection never carries one caller's settings into another's request.
 */

function text(value: string): string {
  // Postgres text cannot hold NUL; such an actor could not be stored either.
  return quoteLiteral(value.replaceAll(String.fromCharCode(0), '\uFFFD'));
}

function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((item) => `"${item.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/**
 * The `SET LOCAL` statements that open an access session for `identity`, inside a transaction or a
 * multi-statement message (whose implicit transaction ends them): utility statements, so nothing
 * is planned or returned. With `role: false` only the caller's settings, keeping the connecting
 * role (reads that must see every hot row).
 */
export function sessionSettingsSql(identity: Identity, options: { role?: boolean } = {}): string {
  const settings: [string, string][] = [
    ['weft.actor_id', identity.actor_id],
    ['weft.roles', arrayLiteral(identity.roles)],
    ['weft.attributes', JSON.stringify(identity.attributes)],
    ['weft.scope', JSON.stringify(identity.scope ?? {})],
  ];
  return [
    ...((options.role ?? true) ? [`SET LOCAL role ${apiRole}`] : []),
    ...settings.map(([name, value]) => `SET LOCAL ${name} = ${text(value)}`),
  ].join('; ');
}

/** Opens the access session inside a transaction already begun (the write pipeline's). */
export async function beginAccessSession(client: PoolClient, identity: Identity): Promise<void> {
  await client.query(sessionSettingsSql(identity));
}

/**
 * Runs `work` in a transaction that is an access session. BEGIN and the settings travel in one
 * round trip (a simple-protocol query; the values are quoted literals, as parameters cannot be
 * sent with two statements). `role: false` publishes the caller's settings without switching role.
 */
export async function withAccessSession<T>(
  pool: Pool,
  identity: Identity,
  work: (client: PoolClient) => Promise<T>,
  options: { role?: boolean } = {},
): Promise<T> {
  return withTransaction(pool, work, { begin: `BEGIN; ${sessionSettingsSql(identity, options)}` });
}

/**
 * Runs one read statement (its values already inlined as quoted literals) in an access session
 * in a single round trip: the settings and the statement travel as one simple-protocol message,
 * which Postgres runs as one implicit transaction, so the transaction-local settings and role
 * apply to the statement and end with it. No BEGIN or COMMIT of its own.
 */
export async function queryInAccessSession<R extends pg.QueryResultRow>(
  pool: Pool,
  identity: Identity,
  text: string,
): Promise<R[]> {
  const results = (await pool.query(`${sessionSettingsSql(identity)}; ${text}`)) as unknown as
    pg.QueryResult<R>[] | pg.QueryResult<R>;
  const last = Array.isArray(results) ? results[results.length - 1] : results;
  return last?.rows ?? [];
}
