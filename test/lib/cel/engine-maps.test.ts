import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fails, holds, run } from './helpers.js';

// langdef.md "Aggregates": map keys are int, uint, bool or string; repeated keys are an error.
// Keys keep their type: 1 and '1' are different keys, while numbers of different types are equal.

describe('map literal keys', () => {
  test('keep their type', () => {
    holds("{1: 'a'}[1] == 'a' && !(dyn('1') in {1: 'a'}) && !(dyn(1) in {'1': 'a'})");
    holds("{true: 'yes'}[true] == 'yes'");
    fails("{'1': 'a'}[1]", /No such key/);
  });

  test('numeric keys of different types are equal', () => {
    holds("{1: 'a'}[1.0] == 'a' && {1: 'a'}[1u] == 'a'");
  });

  test('a loop over a map sees its keys with their types', () => {
    holds("{1: 'a', 2: 'b'}.all(k, type(k) == int) && {1: 'a', 2: 'b'}.exists_one(k, k % 2 == 0)");
    assert.deepEqual(run("{3: 'a', 4: 'b'}.map(k, k * 2)"), [6n, 8n]);
  });

  test('double and null keys are errors', () => {
    fails("{1.5: 'a'}", /map key/);
    fails("{null: 'a'}", /map key/);
  });

  test('a repeated key is an error', () => {
    fails("{'a': 1, 'b': 2, 'a': 3}", /repeated key/);
    fails("{1: 'a', 1u: 'b'}", /repeated key/);
  });
});

describe('loops over empty literals', () => {
  test('the loop variable is dyn, so its operators resolve', () => {
    holds('[].all(x, x > 0) && !{}.exists(k, k > 0)');
  });
});
