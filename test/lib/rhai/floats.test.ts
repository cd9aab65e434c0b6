import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai } from '../../../src/lib/rhai/index.js';

const value = (src: string): JsonValue => evalRhai(src).value;

// Rhai (without its `unchecked` feature) compares floats within f64's epsilon relative to the larger
// magnitude, or absolutely when either side is zero (Rhai's float.rs tests and builtin operators).
describe('rhai float comparisons', () => {
  test('differences within the relative epsilon are equal', () => {
    assert.equal(value('0.1 + 0.2 == 0.3'), true);
    assert.equal(value('0.1 + 0.2 != 0.3'), false);
    assert.equal(value('1e-19 < 1e-18'), true);
    assert.equal(value('0.00000000000000000001 < 0.00000000000000000001000000000000001'), true);
    assert.equal(value('0.00000000000000000001 < 0.000000000000000000010000000000000001'), false);
  });

  test('against zero the epsilon is absolute', () => {
    assert.equal(value('0 < 1e-16'), false);
    assert.equal(value('0 < 1e-15'), true);
    assert.equal(value('0.0 == 1e-17'), true);
    assert.equal(value('0.0 == -0.0'), true);
  });

  test('INT against FLOAT follows the same rule; INT against INT stays exact', () => {
    assert.equal(value('1 == 1.0'), true);
    assert.equal(value('3 < 3.0000000000000001'), false);
    assert.equal(value('1 < 1.5'), true);
    assert.equal(value('9007199254740993 > 9007199254740992'), true);
  });

  test('NaN is unequal to everything, itself included, and unordered', () => {
    assert.deepEqual(value('let x = 0.0 / 0.0; [x == x, x != x, x < 1.0, x >= 1.0]'), [
      false,
      true,
      false,
      false,
    ]);
    assert.equal(value('let x = 0.0 / 0.0; [x].contains(x)'), false);
  });

  test('equality inside arrays and maps uses the same comparison', () => {
    assert.equal(value('[0.1 + 0.2] == [0.3]'), true);
    assert.equal(value('#{a: 0.1 + 0.2} == #{a: 0.3}'), true);
  });
});
