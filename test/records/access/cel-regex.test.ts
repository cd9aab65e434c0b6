import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withRe2Matches } from '../../../src/records/access/cel-re2-matches.js';
import { celProblem, compileRule, type CelInput } from '../../../src/records/access/cel-rules.js';

const actor: CelInput['actor'] = { id: 'a1', roles: ['clerk'], attributes: {}, scope: {} };

function allows(condition: string, record: Record<string, unknown>): boolean {
  assert.equal(celProblem('read', condition), undefined);
  return compileRule({ operation: 'read', condition, message: 'no' }).evaluate({
    actor,
    record,
    now: new Date(),
  });
}

test('matches in both call forms, nested and inside macros, becomes re2_matches', () => {
  assert.equal(withRe2Matches("record.code.matches('^A')"), "re2_matches(record.code, '^A')");
  assert.equal(withRe2Matches("matches(record.code, '^A') || x"), "re2_matches(record.code, '^A') || x");
  assert.equal(
    withRe2Matches("record.tags.exists(t, t.matches('[0-9]+')) && record.a == 1"),
    "record.tags.exists(t, re2_matches(t, '[0-9]+')) && record.a == 1",
  );
  assert.equal(withRe2Matches("record.status == 'matches'"), "record.status == 'matches'");
});

test('an access rule with matches keeps CEL semantics (partial match, RE2 syntax)', () => {
  assert.equal(allows("record.code.matches('^PO-[0-9]{3}$')", { code: 'PO-123' }), true);
  assert.equal(allows("record.code.matches('^PO-[0-9]{3}$')", { code: 'PO-12' }), false);
  assert.equal(allows("matches(record.code, '2')", { code: 'PO-123' }), true);
  assert.equal(allows("record.tags.exists(t, t.matches('^x'))", { tags: ['a', 'xb'] }), true);
  // A pattern RE2 cannot compile fails the evaluation, and a failing rule denies.
  assert.equal(allows("record.code.matches('(a)\\\\1')", { code: 'aa' }), false);
});

test('a catastrophic pattern in an access rule answers at once', () => {
  const started = performance.now();
  assert.equal(allows("record.code.matches('^(a+)+$')", { code: `${'a'.repeat(40)}b` }), false);
  assert.ok(performance.now() - started < 1000, 'RE2 runs in linear time');
});
