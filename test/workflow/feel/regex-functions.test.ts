import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluateFeel } from '../../../src/workflow/engine/runtime/feel.js';
import type { Variables } from '../../../src/workflow/engine/runtime/types.js';

const value = (expression: string, variables: Variables = {}) => {
  const result = evaluateFeel(expression, variables);
  assert.ok(result.ok, `${expression}: ${result.ok ? '' : result.message}`);
  return result.value;
};
const failure = (expression: string) => {
  const result = evaluateFeel(expression, {});
  assert.ok(!result.ok, `${expression} should fail`);
  return result.message;
};

describe('FEEL matches, replace and split run on RE2 with XPath semantics', () => {
  test('matches: a search, with the flags i, s, m and x', () => {
    assert.equal(value('matches("abc", "b")'), true);
    assert.equal(value('matches("Hello", "^hello$", "i")'), true);
    assert.equal(value('matches(s, "a.b", "s")', { s: 'a\nb' }), true);
    assert.equal(value('matches(s, "a.b")', { s: 'a\nb' }), false);
    assert.equal(value('matches(s, "^b$", "m")', { s: 'a\nb' }), true);
    assert.equal(value('matches("ab", "a b [ ]?", "x")'), true);
  });

  test('matches: catastrophic backtracking patterns finish at once', () => {
    const started = performance.now();
    assert.equal(value('matches(s, "^(a+)+$")', { s: `${'a'.repeat(10_000)}b` }), false);
    assert.ok(performance.now() - started < 1000);
  });

  test('a pattern RE2 cannot compile, or an unknown flag, is an error (null with a warning)', () => {
    assert.match(failure('matches("aa", "(a)\\\\1")'), /not a valid RE2 pattern/);
    assert.match(failure('matches("aa", "a(?=a)")'), /not a valid RE2 pattern/);
    assert.match(failure('matches("aa", "a", "q")'), /unsupported flags/);
  });

  test('replace: $0–$9 groups, escaped \\$ and \\\\, empty matches between characters', () => {
    assert.equal(value('replace("abcd", "(b)(c)", "$2$1")'), 'acbd');
    assert.equal(value('replace("abc", "b", "[$0]")'), 'a[b]c');
    assert.equal(value('replace("abc", "b", "\\\\$")'), 'a$c');
    assert.equal(value('replace("abc", "x*", "-")'), '-a-b-c-');
    assert.equal(value('replace("AbC", "b", "x", "i")'), 'AxC');
    assert.match(failure('replace("abc", "b", "$")'), /invalid replacement/);
  });

  test('split: the parts between matches, trailing empty parts kept', () => {
    assert.deepEqual(value('split("John Doe", "\\\\s")'), ['John', 'Doe']);
    assert.deepEqual(value('split("a;b;c;;", ";")'), ['a', 'b', 'c', '', '']);
    assert.deepEqual(value('split("a1b2c", "[0-9]")'), ['a', 'b', 'c']);
  });

  test('a variable of the same name still shadows the function', () => {
    assert.equal(value('matches', { matches: 3 }), 3);
  });
});
