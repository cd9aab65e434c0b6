import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai } from '../../../src/lib/rhai/index.js';

const value = (src: string): JsonValue => evalRhai(src).value;

// Rhai's deprecated forms take the name of a script function where a function pointer goes.
describe('rhai array callbacks named by a string', () => {
  test('map, filter, some, all, reduce, sort, retain take a function name', () => {
    const fns =
      'fn dbl(x) { x * 2 } fn odd(x) { x % 2 == 1 } fn add(a, b) { a + b } fn desc(a, b) { b - a } ';
    assert.deepEqual(value(`${fns} [1, 2, 3].map("dbl")`), [2, 4, 6]);
    assert.deepEqual(value(`${fns} [1, 2, 3].filter("odd")`), [1, 3]);
    assert.deepEqual(value(`${fns} [[1, 2].some("odd"), [1, 2].all("odd")]`), [true, false]);
    assert.equal(value(`${fns} [1, 2, 3].reduce("add", 0)`), 6);
    assert.deepEqual(value(`${fns} let a = [1, 3, 2]; a.sort("desc"); a`), [3, 2, 1]);
    assert.deepEqual(value(`${fns} let a = [1, 2, 3]; let r = a.retain("odd"); [a, r]`), [[1, 3], [2]]);
  });

  test('index_of with a string: a function of that name filters, otherwise the string is searched for', () => {
    assert.equal(value('fn is_two(x) { x == 2 } [1, 2, 3, 2].index_of("is_two")'), 1);
    assert.equal(value('["a", "b"].index_of("b")'), 1);
    assert.equal(value('fn is_two(x) { x == 2 } ["x", "is_two"].index_of("is_two", 1)'), -1);
  });

  test('dedup with a comparer compares each element with the one kept before it', () => {
    assert.deepEqual(value('let a = [1, 2, 12, 3, 13]; a.dedup(|x, y| x % 10 == y % 10); a'), [1, 2, 3]);
    assert.deepEqual(value('let a = [1, 1, 2, 1]; a.dedup(); a'), [1, 2, 1]);
  });
});

describe('rhai is_shared (book: closures, "Data Sharing")', () => {
  test('a variable a closure captured is shared, in call and method form', () => {
    assert.equal(value('let x = 1; let f = || x; is_shared(x)'), true);
    assert.equal(value('let x = 1; let f = || x + 1; x.is_shared()'), true);
    assert.equal(value('let x = 1; let f = |y| y + 1; is_shared(x)'), false);
    assert.equal(value('is_shared(42)'), false);
  });
});
