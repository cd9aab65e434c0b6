import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileRhai, compileRhaiExpression, RhaiError } from '../../../src/lib/rhai/index.js';

function parseFailure(source: string): RhaiError {
  try {
    compileRhai(source);
  } catch (e) {
    assert.ok(e instanceof RhaiError, `not a RhaiError: ${String(e)}`);
    assert.equal(e.kind, 'ErrorParsing');
    return e;
  }
  assert.fail(`expected a parse error for: ${source}`);
}

describe('rhai lexer and parser errors', () => {
  test('report 1-based line and column of the offending token', () => {
    const e = parseFailure('let x = 1;\nlet y = x +* 2;');
    assert.equal(e.line, 2);
    assert.equal(e.column, 12);
  });

  test('an unterminated string points at its opening quote', () => {
    const e = parseFailure('let a = 1;\n  let s = "abc');
    assert.equal(e.parseError, 'BadInput');
    assert.deepEqual([e.line, e.column], [2, 11]);
  });

  test('an unterminated block comment is an error at the comment', () => {
    const e = parseFailure('1 + /* never closed');
    assert.deepEqual([e.line, e.column], [1, 5]);
  });

  test('a missing semicolon between statements is reported at the second statement', () => {
    const e = parseFailure('let x = 1\nlet y = 2;');
    assert.equal(e.parseError, 'MissingToken');
    assert.deepEqual([e.line, e.column], [2, 1]);
  });

  test('invalid assignment targets and constants', () => {
    assert.equal(parseFailure('foo(x) = 42;').parseError, 'AssignmentToInvalidLHS');
    assert.equal(parseFailure('123 = 42;').parseError, 'AssignmentToConstant');
    assert.equal(parseFailure('const a = 1; a = 2;').parseError, 'AssignmentToConstant');
  });

  test('break outside a loop, duplicate functions and parameters', () => {
    assert.equal(parseFailure('break;').parseError, 'LoopBreak');
    assert.equal(parseFailure('fn f(x) { x } fn f(y) { y }').parseError, 'FnDuplicatedDefinition');
    assert.equal(parseFailure('fn f(x, x) { x }').parseError, 'FnDuplicatedParam');
    assert.equal(parseFailure('{ fn inner() { 1 } }').parseError, 'WrongFnDefinition');
  });

  test('a statement where an expression is required is a parse error', () => {
    for (const src of [
      'let x = let y = 1;',
      'if (let x = 1) { 1 }',
      'let a = [1, let y = 2];',
      'let x = break;',
      'let x = return 1;',
      'let f = foo(const c = 1);',
    ]) {
      assert.equal(parseFailure(src).parseError, 'BadInput', src);
    }
  });

  test('unterminated constructs name what is missing', () => {
    assert.equal(parseFailure('{ let x = 1;').parseError, 'MissingToken');
    assert.equal(parseFailure('let a = [1, 2').parseError, 'MissingToken');
    assert.equal(parseFailure('let m = #{a: 1').parseError, 'MissingToken');
    assert.equal(parseFailure('while true').parseError, 'MissingToken');
    assert.equal(parseFailure('let s = `abc ${1 + 2').parseError, 'BadInput');
    assert.equal(parseFailure('let s = `abc').parseError, 'BadInput');
    assert.equal(parseFailure("let c = 'a").parseError, 'BadInput');
  });

  test('Rhai has no loop labels', () => {
    parseFailure("'outer: loop { break; }");
  });

  test('non-ASCII identifiers are rejected', () => {
    const e = parseFailure('let 変数 = 1;');
    assert.deepEqual([e.line, e.column], [1, 5]);
  });

  test('expression mode rejects statements', () => {
    assert.throws(() => compileRhaiExpression('let x = 1'), RhaiError);
    assert.throws(() => compileRhaiExpression('40 + 2;'), RhaiError);
    assert.doesNotThrow(() => compileRhaiExpression('40 + 2'));
  });

  test('valid scripts compile', () => {
    assert.doesNotThrow(() =>
      compileRhai(
        'fn add(a, b) { a + b } let m = #{a: 1, "b c": [1, 2.5, \'x\', `t${1}`]}; switch 3 { 1..3 => 1, _ => 2 }',
      ),
    );
  });
});
