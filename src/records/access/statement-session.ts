import type pg from 'pg';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { quoteLiteral } from '../schemas/identifiers.js';
import type { Identity } from '../types.js';
import { queryInAccessSession, sessionSettingsSql, withAccessSession } from './access-session.js';

function arrayText(items: unknown[]): string {
  return `{${items
    .map((item) =>
      item === null || item === undefined
        ? 'NULL'
        : `"${valueText(item).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
    )
    .join(',')}}`;
}

function valueText(value: unknown): string {
  if (Array.isArray(value)) return arrayText(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** The values as quoted literals, or undefined when one cannot be written as one (a NUL character). */
function literalsOf(values: readonly unknown[]): string[] | undefined {
  const literals: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) {
      literals.push('NULL');
      continue;
    }
    const body = valueText(value);
    if (body.includes('\u0000')) return undefined;
    literals.push(quoteLiteral(body));
  }
  return literals;
}

/**
 * `text` with its `$n` placeholders replaced by quoted literals, or undefined when a value cannot
 * be written as one (a NUL character, which Postgres text cannot hold anyway). Only for statements
 * this service generates: every `$n` in them is a placeholder (row-filter SQL may not contain any,
 * see validate-access.ts) and each is followed by its `::type` cast.
 */
export function inlineValues(text: string, values: readonly unknown[]): string | undefined {
  const literals = literalsOf(values);
  if (literals === undefined) return undefined;
  let complete = true;
  const inlined = text.replace(/\$(\d+)/g, (_match, index: string) => {
    const literal = literals[Number(index) - 1];
    if (literal === undefined) complete = false;
    return literal ?? 'NULL';
  });
  return complete ? inlined : undefined;
}

// SQL-level prepared statements of each connection, by statement name. They live beside the
// driver's protocol-level ones (another namespace prefix), and die with their connection.
const preparedOn = new WeakMap<PoolClient, Set<string>>();

/**
 * Runs a named statement in an access session at one round trip without planning it each time:
 * the connection prepares it once (`PREPARE`, as SQL, since the driver's protocol-level statements
 * cannot travel in a multi-statement message), then each request sends the session's `SET LOCAL`
 * statements and `EXECUTE name(literals)` together. The plan is made and cached under the request role, which every
 * execution runs as; row-level security's settings are read when it executes.
 */
async function executeNamed(
  pool: Pool,
  identity: Identity,
  name: string,
  text: string,
  literals: string[],
): Promise<pg.QueryResultRow[]> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    let prepared = preparedOn.get(client);
    if (!prepared) {
      prepared = new Set();
      preparedOn.set(client, prepared);
    }
    const sqlName = `"session_${name.replace(/"/g, '')}"`;
    if (!prepared.has(name)) {
      await client.query(`PREPARE ${sqlName} AS ${text}`);
      prepared.add(name);
    }
    const args = literals.length > 0 ? `(${literals.join(', ')})` : '';
    const results = (await client.query(
      `${sessionSettingsSql(identity)}; EXECUTE ${sqlName}${args}`,
    )) as unknown as pg.QueryResult<pg.QueryResultRow>[] | pg.QueryResult<pg.QueryResultRow>;
    const last = Array.isArray(results) ? results[results.length - 1] : results;
    const rows: pg.QueryResultRow[] = last?.rows ?? [];
    return rows;
  } catch (error) {
    // A connection whose statements are in doubt is not reused.
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(failure);
  }
}

/**
 * A Queryable for read-only work in an access session at one round trip per statement: each
 * statement travels with the session settings as one simple-protocol message (one implicit
 * transaction; see `queryInAccessSession`), its values inlined. A statement that cannot be inlined
 * runs in a transaction of its own. Statements do not share a snapshot: for reads whose statements
 * need none (a page, then its count when the page came back empty).
 */
export function statementSession(pool: Pool, identity: Identity): Queryable {
  const query = async (config: pg.QueryConfig | string, values?: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    const params = (typeof config === 'string' ? values : config.values) ?? [];
    const name = typeof config === 'string' ? undefined : config.name;
    const literals = name === undefined ? undefined : literalsOf(params);
    const inlined = name === undefined ? inlineValues(text, params) : undefined;
    const rows: pg.QueryResultRow[] =
      name !== undefined && literals !== undefined
        ? await executeNamed(pool, identity, name, text, literals)
        : inlined !== undefined
          ? await queryInAccessSession(pool, identity, inlined)
          : await withAccessSession(
              pool,
              identity,
              async (client) => (await client.query<pg.QueryResultRow>(text, params)).rows,
            );
    return { rows, rowCount: rows.length, command: 'SELECT', oid: 0, fields: [] };
  };
  return { query } as unknown as Queryable;
}
