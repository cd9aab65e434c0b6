import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateFeel } from '../../../src/workflow/engine/runtime/feel.js';

test('conditions and mappings apply *, / and unary - to durations as FEEL does', () => {
  assert.deepEqual(evaluateFeel('duration("PT1H") * n', { n: 3 }), { ok: true, value: 'PT3H' });
  assert.deepEqual(evaluateFeel('-duration("P1D")', {}), { ok: true, value: '-P1D' });
  assert.deepEqual(evaluateFeel('duration("P1D") / duration("PT1H") > 20', {}), { ok: true, value: true });
  assert.deepEqual(evaluateFeel('a * -b', { a: 2, b: 4 }), { ok: true, value: -8 });
  const refused = evaluateFeel('"a" * 2', {});
  assert.ok(!refused.ok && /multiply/.test(refused.message), 'a type error is still an error');
});
