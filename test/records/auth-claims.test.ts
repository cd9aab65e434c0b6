import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pool } from '../../src/platform/database/pool.js';
import { claimMappingProblems, mapClaims } from '../../src/records/auth/claims/claim-mapping.js';
import { LookupTables } from '../../src/records/auth/claims/lookup-tables.js';
import { resourceCompanion } from '../../src/records/auth/resource-companions.js';
import { AddressAllowlist } from '../../src/records/auth/strategies/address-allowlist.js';
import { withBindings } from '../../src/records/role-bindings/binding-cache.js';
import { MovableClock } from './support/auth-fixtures.js';

/** A pool answering lookups from a fixed table and counting queries. */
function fakeLookupPool(rows: { key: string; value: unknown }[]) {
  const pool = {
    queries: 0,
    query: (_sql: string, [keys]: [string[]]) => {
      pool.queries += 1;
      return Promise.resolve({ rows: rows.filter((row) => keys.includes(row.key)) });
    },
  };
  return pool;
}

describe('claim mapping', () => {
  const clock = new MovableClock();
  const context = (pool = fakeLookupPool([])) => ({
    lookups: new LookupTables(pool as unknown as Pool, clock),
    clock,
  });

  test('every transform', async () => {
    const identity = await mapClaims(
      {
        actorId: 'user.id',
        roles: [
          { path: 'roles', transform: 'identity' },
          { path: 'scope', transform: 'split', separator: ' ' },
          { path: 'ad_groups', transform: 'regex_extract', pattern: '^CN=(?<name>[^,]+)', group: 'name' },
          { path: 'missing', transform: 'static_append', value: ['everyone', 'reader'] },
          { path: 'shout', transform: 'uppercase' },
        ],
        attributes: {
          region: { path: 'region', transform: 'lowercase' },
          badge: { path: 'badge', transform: 'prefix_strip', prefix: 'B-' },
          team: { path: 'team', transform: 'lookup', table: 'teams', keyColumn: 'code', valueColumn: 'name' },
          numbers: { path: 'phone', transform: 'regex_extract', pattern: '(\\d+)' },
          tags: { path: 'tags', transform: 'static_append', value: 'extra' },
          profile: { path: 'profile' },
        },
      },
      {
        user: { id: 42 },
        roles: ['a', 'a', 'b'],
        scope: 'read:x write:y',
        ad_groups: ['CN=admins,OU=x', 'OU=nothing'],
        shout: 'ops',
        region: 'EU-West',
        badge: 'B-1234',
        team: 'T1',
        phone: 'tel 0123',
        tags: ['t'],
        profile: { level: 3 },
      },
      context(fakeLookupPool([{ key: 'T1', value: 'Platform' }])),
    );
    assert.deepEqual(identity, {
      actor_id: '42',
      roles: ['a', 'b', 'read:x', 'write:y', 'admins', 'everyone', 'reader', 'OPS'],
      attributes: {
        region: 'eu-west',
        badge: '1234',
        team: 'Platform',
        numbers: '0123',
        tags: ['t', 'extra'],
        profile: { level: 3 },
      },
    });
  });

  test('a missing or empty actorId claim maps to null (401)', async () => {
    assert.equal(await mapClaims({ actorId: 'sub' }, {}, context()), null);
    assert.equal(await mapClaims({ actorId: 'sub' }, { sub: '  ' }, context()), null);
    assert.equal(await mapClaims({ actorId: 'sub' }, { sub: { nested: true } }, context()), null);
  });

  test('lookups are cached for 30 seconds', async () => {
    const pool = fakeLookupPool([{ key: 'D1', value: 'approver' }]);
    const tables = new LookupTables(pool as unknown as Pool, clock);
    const table = { table: 'departments', keyColumn: 'code', valueColumn: 'role' };
    assert.deepEqual(await tables.lookup(table, ['D1', 'D2']), ['approver']);
    assert.deepEqual(await tables.lookup(table, ['D1']), ['approver']);
    assert.equal(pool.queries, 1);
    clock.advance(31_000);
    await tables.lookup(table, ['D1']);
    assert.equal(pool.queries, 2);
  });

  test('transform parameters are required', () => {
    const problems = claimMappingProblems(
      {
        actorId: 'sub',
        roles: [
          { path: 'r', transform: 'prefix_strip' },
          { path: 'r', transform: 'regex_extract', pattern: '(' },
        ],
        attributes: { t: { path: 't', transform: 'lookup', table: 'x' } },
      },
      'spec.jwt.claimMapping',
    );
    assert.deepEqual(
      problems.map((problem) => problem.path),
      [
        'spec.jwt.claimMapping.roles.0.prefix',
        'spec.jwt.claimMapping.roles.1.pattern',
        'spec.jwt.claimMapping.attributes.t.keyColumn',
        'spec.jwt.claimMapping.attributes.t.valueColumn',
      ],
    );
  });
});

describe('auth resources', () => {
  test('invalid AuthStrategy and RoleBinding documents are refused with paths', () => {
    const reasons = (kind: string, spec: unknown) =>
      resourceCompanion(kind, 'x', spec)?.problems.map((problem) => problem.path) ?? [];
    assert.deepEqual(reasons('AuthStrategy', { type: 'jwt' }), ['spec.jwt']);
    assert.ok(reasons('AuthStrategy', { type: 'kerberos' }).length > 0);
    assert.deepEqual(
      reasons('AuthStrategy', { type: 'jwt', jwt: { issuer: 'i', claimMapping: { actorId: 'sub' } } }),
      ['spec.jwt.issuers.0'],
    );
    assert.deepEqual(
      reasons('AuthStrategy', {
        type: 'api_key',
        apiKey: { headerName: 'X-Key', ipAllowlist: ['10.0.0.0/33'] },
      }),
      ['spec.apiKey.ipAllowlist.0'],
    );
    assert.deepEqual(
      reasons('AuthStrategy', {
        type: 'jwt',
        jwt: {
          issuer: 'i',
          jwksUrl: 'http://k',
          claimMapping: { actorId: 'sub', roles: [{ path: 'x', transform: 'lookup', table: 'bad;table' }] },
        },
      }).length > 0,
      true,
    );
    assert.deepEqual(reasons('RoleBinding', { actor: 'a', roles: ['r'], expiryDate: 'tomorrow' }), [
      'spec.expiryDate',
    ]);
    assert.ok(reasons('RoleBinding', { roles: ['r'] }).length > 0);
    assert.deepEqual(
      reasons('RoleBinding', { actor: 'a', roles: ['r'], expiryDate: '2030-01-01T00:00:00Z' }),
      [],
    );
  });

  test('allowlists match IPv4, IPv6 and IPv4-mapped addresses', () => {
    const list = new AddressAllowlist(['10.0.0.0/8', '2001:db8::/32', '192.0.2.1']);
    assert.ok(list.includes('10.200.1.1'));
    assert.ok(list.includes('::ffff:10.1.1.1'));
    assert.ok(list.includes('2001:db8:1::5'));
    assert.ok(list.includes('192.0.2.1'));
    assert.ok(!list.includes('192.0.2.2'));
    assert.ok(!list.includes('11.0.0.1'));
    assert.ok(!list.includes('not an address'));
  });

  test('bindings: expired ones grant nothing; live ones merge roles, scope and attributes', () => {
    const identity = { actor_id: 'a', roles: ['r0'], attributes: { k: 1 } };
    const now = Date.parse('2030-01-01T00:00:00Z');
    const bindings = [
      { name: 'b1', actor: 'a', roles: ['r1'], expiresAt: now - 1, scope: { region: 'EU' }, attributes: {} },
      {
        name: 'b2',
        actor: 'a',
        roles: ['r2', 'r0'],
        expiresAt: null,
        scope: { stores: [1] },
        attributes: { k: 2 },
      },
    ];
    assert.deepEqual(withBindings(identity, bindings, now), {
      actor_id: 'a',
      roles: ['r0', 'r2'],
      attributes: { k: 2 },
      scope: { stores: [1] },
    });
    assert.equal(withBindings(identity, [bindings[0]!], now), identity);
  });
});
