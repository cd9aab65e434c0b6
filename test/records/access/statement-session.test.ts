import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPool } from '../../../src/platform/database/pool.js';
import { inlineValues, statementSession } from '../../../src/records/access/statement-session.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';

describe('records access: statements in one round trip with inlined values', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createMigratedDatabase('records');
  });
  after(() => database?.drop());

  test('hostile values come back exactly as sent', async () => {
    const values = [
      `it's a "quote" \\ and \\' more; DROP TABLE x; --`,
      ['a"b', 'c\\d', "e'f", null, '{g,h}'],
      { nested: ["x'y"] },
      '12.50',
      null,
    ];
    const text = 'SELECT $1::text AS a, $2::text[] AS b, $3::jsonb AS c, $4::numeric AS d, $5::text AS e';
    const inlined = inlineValues(text, values);
    assert.ok(inlined !== undefined && !inlined.includes('$'));
    const db = statementSession(database.pool, { actor_id: "o'brien", roles: ['a"b'], attributes: {} });
    const { rows } = await db.query<{ a: string; b: (string | null)[]; c: unknown; d: string; e: null }>({
      text,
      values,
    });
    assert.deepEqual(rows[0], { a: values[0], b: values[1], c: values[2], d: '12.50', e: null });
  });

  test('the session applies to the statement and ends with it', async () => {
    // One connection, so the check below runs where the statement ran.
    const pool = createPool(database.url, { max: 1, applicationName: 'statement-session-test' });
    after(() => pool.end());
    const db = statementSession(pool, { actor_id: "o'brien", roles: ['rep'], attributes: {} });
    const inside = await db.query<{ actor: string; role: string }>({
      text: `SELECT current_setting('weft.actor_id') AS actor, current_user AS role`,
      values: [],
    });
    assert.deepEqual(inside.rows[0], { actor: "o'brien", role: 'weft_records_api' });
    const { rows } = await pool.query<{ actor: string | null; role: string }>(
      `SELECT nullif(current_setting('weft.actor_id', true), '') AS actor, current_user AS role`,
    );
    assert.equal(rows[0]?.actor ?? null, null, 'no setting survives on the pooled connection');
    assert.notEqual(rows[0]?.role, 'weft_records_api');
  });

  test('hostile caller values reach the session settings exactly, in named and inlined statements', async () => {
    const identity = {
      actor_id: `x'; RESET ROLE; SET LOCAL weft.actor_id = 'admin'; -- \\`,
      roles: ['a"b', "c'd", 'e\\f'],
      attributes: { region: `n'o"r\\th; --` },
    };
    const db = statementSession(database.pool, identity);
    const text = `SELECT current_setting('weft.actor_id') AS actor, current_setting('weft.roles') AS roles,
                         current_setting('weft.attributes')::jsonb AS attributes, current_user AS role`;
    for (const name of [undefined, 'hostile-settings-check']) {
      const { rows } = await db.query<{ actor: string; roles: string; attributes: unknown; role: string }>({
        text,
        values: [],
        ...(name === undefined ? {} : { name }),
      });
      assert.equal(rows[0]?.actor, identity.actor_id, name ?? 'inlined');
      const roles = await database.pool.query<{ roles: string[] }>('SELECT $1::text[] AS roles', [
        rows[0]?.roles,
      ]);
      assert.deepEqual(roles.rows[0]?.roles, identity.roles);
      assert.deepEqual(rows[0]?.attributes, identity.attributes);
      assert.equal(rows[0]?.role, 'weft_records_api');
    }
  });

  test('a value holding NUL is not inlined', () => {
    assert.equal(inlineValues('SELECT $1::text', [`a${String.fromCharCode(0)}b`]), undefined);
  });
});
