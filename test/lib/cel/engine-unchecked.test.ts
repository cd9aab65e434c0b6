import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Environment } from '../../../src/lib/cel-engine/index.js';
import { engine, holds } from './helpers.js';

// cel-spec's disable_check: without type checking, an expression whose types disagree runs; the
// disagreement is an evaluation error where it occurs, which || and && absorb.

const unchecked = new Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
  uncheckedEvaluation: true,
});

function runUnchecked(expression: string, bindings: Record<string, unknown> = {}): unknown {
  return unchecked.evaluate(expression, bindings);
}

describe('evaluation without type checking', () => {
  test('logical operators take non-bool operands they do not need', () => {
    assert.equal(runUnchecked('false && 1'), false);
    assert.equal(runUnchecked("'x' || true"), true);
    assert.throws(() => runUnchecked('true && 1'), /bool/);
  });

  test('the branches of a conditional may have different types', () => {
    assert.equal(runUnchecked("false ? 'a' : 2"), 2n);
  });

  test('an unknown function or method fails when called, and || absorbs it', () => {
    assert.equal(runUnchecked('no_such_function(1) || true'), true);
    assert.equal(runUnchecked('x.no_such_method() || true', { x: 1n }), true);
    assert.throws(() => runUnchecked('no_such_function(1)'), /overload/);
  });

  test('values of different types are unequal', () => {
    assert.equal(runUnchecked("1 == 'a'"), false);
    assert.equal(runUnchecked("[1, 'a'] != ['a', 1]"), true);
    assert.equal(runUnchecked('[2] == [2.0]'), true);
    assert.throws(() => runUnchecked("1 < 'a'"), /overload/);
  });

  test('check() still rejects what unchecked evaluation runs', () => {
    assert.equal(unchecked.check('false && 1').valid, false);
    assert.equal(engine.check("true ? 'a' : 2").valid, false);
    assert.throws(() => engine.evaluate('false && 1'), /bool/);
  });

  test('checked evaluation keeps heterogeneous equality on dyn values', () => {
    holds("dyn(1) != dyn('1')");
  });
});
