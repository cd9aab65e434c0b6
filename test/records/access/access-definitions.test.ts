import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateSchemaDefinition } from '../../../src/records/schemas/validate-definition.js';

const base = {
  org: 'acme',
  app: 'sales',
  domain: 'crm',
  object: 'deals',
  version: 'v1',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'account_id', type: 'uuid', references: 'acme/sales/crm/accounts/v1' },
  ],
};

function problems(access: unknown, fields: unknown[] = base.fields): string[] {
  const result = validateSchemaDefinition({ ...base, fields, access });
  return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.reason}`);
}

describe('records access: spec.access is validated at apply time', () => {
  test('a complete access section is accepted', () => {
    assert.deepEqual(
      problems({
        roles: { read: ['rep'] },
        abac: [{ operation: 'update', condition: 'record.title != request.title', message: 'm' }],
        rowFilter: [{ role: 'rep', condition: "title = current_setting('weft.actor_id')" }],
        fieldAccess: [{ field: 'title', read: ['rep'], write: [] }],
      }),
      [],
    );
  });

  test('bad rules are refused with their path and reason', () => {
    const cases: [unknown, RegExp][] = [
      [{ abac: [{ operation: 'read', condition: 'actor.id ==' }] }, /abac\[0\]\.condition/],
      [{ abac: [{ operation: 'create', condition: 'record.x == 1' }] }, /Unknown variable: record/],
      [{ abac: [{ operation: 'read', condition: 'request.x == 1' }] }, /Unknown variable: request/],
      [{ abac: [{ operation: 'read', condition: '1 + 2' }] }, /must be a boolean/],
      [{ abac: [{ operation: 'list', condition: 'true' }] }, /operation/],
      [{ rowFilter: [{ role: 'rep', condition: 'true; DROP TABLE x' }] }, /may not contain/],
      [{ rowFilter: [{ role: 'rep', condition: 'true -- x' }] }, /may not contain/],
      [{ rowFilter: [{ role: 'rep', condition: 'a = $1' }] }, /may not contain/],
      [{ rowFilter: [{ role: 'rep', condition: 'true) OR (true' }] }, /unbalanced/],
      [{ rowFilter: [{ role: 'rep', condition: "title = 'x" }] }, /unterminated/],
      [{ rowFilter: [{ role: '', condition: 'true' }] }, /role/],
      [{ fieldAccess: [{ field: 'nope', read: ['a'] }] }, /must name a field/],
      [{ fieldAccess: [{ field: 'id', read: ['a'] }] }, /must name a field/],
      [{ fieldAccess: [{ field: 'title', read: 'a' }] }, /list of role names/],
      [{ other: true }, /not an access property/],
      [{ roles: { list: ['a'] } }, /is not one of/],
    ];
    for (const [access, expected] of cases)
      assert.match(problems(access).join('\n'), expected, JSON.stringify(access));
    assert.match(
      problems({}, [{ name: 'x', type: 'string', references: 'acme/sales/crm/accounts/v1' }]).join('\n'),
      /references/,
    );
    assert.deepEqual(problems({ rowFilter: [{ role: 'rep', condition: "title = 'a;b--c'" }] }), []);
  });
});
