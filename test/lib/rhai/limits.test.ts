import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RhaiError, RhaiLimits } from '../../../src/lib/rhai/index.js';
import { compileRhai, defaultRhaiLimits, evalRhai, isRhaiError } from '../../../src/lib/rhai/index.js';

function failure(source: string, limits: Partial<RhaiLimits> = {}): RhaiError {
  try {
    evalRhai(source, {}, limits);
  } catch (e) {
    assert.ok(isRhaiError(e), `not a RhaiError: ${String(e)}`);
    return e;
  }
  assert.fail(`expected an error for: ${source}`);
}

describe('rhai sandbox limits', () => {
  test('defaults follow the spec', () => {
    assert.equal(defaultRhaiLimits.maxOperations, 100_000);
    assert.equal(defaultRhaiLimits.maxCallLevels, 20);
    assert.equal(defaultRhaiLimits.maxExprDepth, 64);
    assert.deepEqual([...defaultRhaiLimits.disabledSymbols], ['eval', 'print', 'debug']);
  });

  test('loop {} ends quickly with an operations error', () => {
    const start = Date.now();
    const e = failure('loop {}');
    assert.equal(e.kind, 'ErrorTooManyOperations');
    assert.ok(Date.now() - start < 1000, 'took too long');
  });

  test('the operations limit cannot be caught by try/catch', () => {
    assert.equal(failure('loop { try { loop {} } catch { } }').kind, 'ErrorTooManyOperations');
  });

  test('maxOperations is configurable', () => {
    assert.doesNotThrow(() =>
      evalRhai('let s = 0; for i in 0..100 { s += i } s', {}, { maxOperations: 1000 }),
    );
    assert.equal(
      failure('let s = 0; for i in 0..100 { s += i } s', { maxOperations: 200 }).kind,
      'ErrorTooManyOperations',
    );
  });

  test('the wall-clock deadline stops a run', () => {
    const e = failure('let a = []; loop { a.push(1); a.clear(); }', { maxOperations: 0, timeoutMs: 50 });
    assert.equal(e.kind, 'ErrorTerminated');
  });

  test('deep recursion ends with a stack overflow at maxCallLevels', () => {
    const src = 'fn down(n) { if n == 0 { 0 } else { 1 + down(n - 1) } } down(DEPTH)';
    assert.equal(evalRhai(src.replace('DEPTH', '19')).value, 19);
    const e = failure(src.replace('DEPTH', '25'));
    assert.equal(e.kind, 'ErrorStackOverflow');
    assert.equal(
      failure('fn f() { f() } f()', { maxCallLevels: 0, maxOperations: 0 }).kind,
      'ErrorStackOverflow',
    );
  });

  test('doubling a string ends with a size error', () => {
    const start = Date.now();
    const e = failure('let s = "x"; loop { s += s }');
    assert.equal(e.kind, 'ErrorDataTooLarge');
    assert.ok(Date.now() - start < 1000);
    assert.equal(failure('let s = "ab"; s.pad(11, "c"); s', { maxStringSize: 10 }).kind, 'ErrorDataTooLarge');
  });

  test('huge arrays and maps end with a size error', () => {
    assert.equal(failure('let a = []; loop { a.push(1) }', { maxArraySize: 1000 }).kind, 'ErrorDataTooLarge');
    assert.equal(failure('let a = [1]; loop { a += a }').kind, 'ErrorDataTooLarge');
    assert.equal(
      failure('let m = #{}; let i = 0; loop { m[`k${i}`] = i; i += 1 }', { maxMapSize: 50 }).kind,
      'ErrorDataTooLarge',
    );
    assert.equal(failure('let a = [1, 2, 3]; a.pad(1000000, 0)').kind, 'ErrorDataTooLarge');
  });

  test('deeply nested expressions are rejected at parse time', () => {
    const deep = `${'('.repeat(100)}1${')'.repeat(100)}`;
    assert.throws(
      () => compileRhai(deep),
      (e: unknown) => isRhaiError(e) && e.parseError === 'ExprTooDeep',
    );
    assert.doesNotThrow(() => compileRhai(`${'('.repeat(10)}1${')'.repeat(10)}`));
    const body = `${'('.repeat(40)}1${')'.repeat(40)}`;
    assert.throws(
      () => compileRhai(`fn f() { ${body} }`),
      (e: unknown) => isRhaiError(e) && e.parseError === 'ExprTooDeep',
    );
    assert.doesNotThrow(() => compileRhai(`fn f() { ${body} }`, { maxFunctionExprDepth: 100 }));
  });

  test('eval is rejected at parse time even when not listed', () => {
    for (const disabledSymbols of [undefined, [] as string[]]) {
      assert.throws(
        () => compileRhai('eval("1")', disabledSymbols ? { disabledSymbols } : {}),
        (e: unknown) => isRhaiError(e) && e.kind === 'ErrorParsing',
      );
    }
  });

  test('print and debug are disabled by default and allowed when not listed', () => {
    assert.throws(
      () => compileRhai('print("hi")'),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorParsing',
    );
    assert.throws(
      () => compileRhai('debug(1)'),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorParsing',
    );
    assert.equal(evalRhai('print("hi"); 1', {}, { disabledSymbols: [] }).value, 1);
  });

  test('disabled keywords and operators are parse errors', () => {
    assert.throws(
      () => compileRhai('while false {}', { disabledSymbols: ['while'] }),
      (e: unknown) => isRhaiError(e) && e.parseError === 'Reserved',
    );
    assert.throws(
      () => compileRhai('let x = 1; x += 1;', { disabledSymbols: ['+='] }),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorParsing',
    );
  });

  test('literals larger than the limits are parse errors', () => {
    assert.throws(
      () => compileRhai('"hello, world"', { maxStringSize: 5 }),
      (e: unknown) => isRhaiError(e) && e.parseError === 'LiteralTooLarge',
    );
    assert.throws(
      () => compileRhai('[1, 2, 3]', { maxArraySize: 2 }),
      (e: unknown) => isRhaiError(e) && e.parseError === 'LiteralTooLarge',
    );
  });

  test('max_variables bounds the variables alive in one scope (book: "Maximum Number of Variables")', () => {
    const five = 'let a = 0; let b = 0; let c = 0; let d = 0; let e = 0;';
    const limits = { maxVariables: 5 };
    assert.doesNotThrow(() => evalRhai(five, {}, limits));
    assert.equal(failure(`${five} let f = 0;`, limits).kind, 'ErrorTooManyVariables');
    // Declaring a name again in the same block reuses its entry; a block's variables end with it.
    assert.doesNotThrow(() => evalRhai(`${five} let a = 42;`, {}, limits));
    assert.doesNotThrow(() =>
      evalRhai(`let a = 0; let b = 0; let c = 0; let d = 0; { let e = 0; } let f = 0;`, {}, limits),
    );
    assert.equal(failure(`${five} for x in 0..2 {}`, limits).kind, 'ErrorTooManyVariables');
    assert.equal(
      failure('let a = 0; let b = 0; let c = 0; let d = 0; for (x, i) in [1] {}', limits).kind,
      'ErrorTooManyVariables',
    );
    assert.equal(failure(`${five} try { throw 1; } catch (err) {}`, limits).kind, 'ErrorTooManyVariables');
    // A function starts a scope of its own with its parameters in it.
    assert.equal(
      failure('fn f(a, b, c, d, e, f) { 1 } f(1, 2, 3, 4, 5, 6)', limits).kind,
      'ErrorTooManyVariables',
    );
    const four = 'let a = 0; let b = 0; let c = 0; let d = 0;';
    assert.doesNotThrow(() => evalRhai(`${four} fn g(x) { let y = x; y } g(1)`, {}, limits));
    // The host's variables count at the top level.
    assert.equal(
      kindWithScope('let e = 0;', { a: 1, b: 2, c: 3, d: 4, e2: 5 }, limits),
      'ErrorTooManyVariables',
    );
    assert.equal(defaultRhaiLimits.maxVariables, undefined);
  });
});

/** The kind of error a script run over a host scope fails with, or 'none'. */
function kindWithScope(source: string, scope: Record<string, number>, limits: Partial<RhaiLimits>): string {
  try {
    evalRhai(source, scope, limits);
  } catch (e) {
    assert.ok(isRhaiError(e));
    return e.kind;
  }
  return 'none';
}
