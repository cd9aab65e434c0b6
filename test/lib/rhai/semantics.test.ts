import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { compileRhai, evalRhai, isRhaiError, runRhai } from '../../../src/lib/rhai/index.js';

const value = (src: string, scope: Record<string, JsonValue> = {}): JsonValue => evalRhai(src, scope).value;
const kindOf = (src: string): string => {
  try {
    evalRhai(src);
  } catch (e) {
    assert.ok(isRhaiError(e));
    return e.kind;
  }
  return 'none';
};

describe('rhai integers', () => {
  test('overflow is an arithmetic error, not a wrap or a float', () => {
    assert.equal(kindOf('9223372036854775807 + 1'), 'ErrorArithmetic');
    assert.equal(kindOf('-9223372036854775808 - 1'), 'ErrorArithmetic');
    assert.equal(kindOf('4611686018427387904 * 2'), 'ErrorArithmetic');
    assert.equal(kindOf('let x = 3037000500; x * x'), 'ErrorArithmetic');
    assert.equal(kindOf('abs(-9223372036854775808)'), 'ErrorArithmetic');
    assert.equal(kindOf('1 / 0'), 'ErrorArithmetic');
    assert.equal(kindOf('2 ** 64'), 'ErrorArithmetic');
  });

  test('large integers are exact and leave as decimal strings', () => {
    assert.equal(value('9007199254740993 + 0'), '9007199254740993');
    assert.equal(value('9223372036854775806 + 1'), '9223372036854775807');
    assert.equal(value('let x = 4294967296; x * 2'), 8589934592);
  });

  test('integer division truncates and floats stay floats', () => {
    assert.equal(value('7 / 2'), 3);
    assert.equal(value('-7 / 2'), -3);
    assert.equal(value('7.0 / 2'), 3.5);
    assert.equal(value('type_of(2.0)'), 'f64');
    assert.equal(value('type_of(2)'), 'i64');
    assert.equal(value('(2.0).to_string()'), '2.0');
  });
});

describe('rhai JSON conversion', () => {
  test('JSON integers become INT and other numbers FLOAT', () => {
    const { value: v } = evalRhai(
      '[type_of(a), type_of(b), type_of(c), type_of(d), type_of(e), type_of(f)]',
      {
        a: 1,
        b: 1.5,
        c: 'x',
        d: null,
        e: [1],
        f: { k: true },
      },
    );
    assert.deepEqual(v, ['i64', 'f64', 'string', '()', 'array', 'map']);
  });

  test('values come back as JSON', () => {
    assert.deepEqual(value('[1, 2.5, "s", \'c\', (), true, #{a: [#{}]}, Fn("f")]'), [
      1,
      2.5,
      's',
      'c',
      null,
      true,
      { a: [{}] },
      'f',
    ]);
    assert.equal(value('1.0'), 1);
  });

  test('a round trip keeps data unchanged', () => {
    const data = { n: 1, f: 0.1, s: 'é❤', a: [1, [2, { x: null }]], o: { 'a b': false } };
    const { value: v } = evalRhai('data', { data });
    assert.deepEqual(v, data);
  });
});

describe('rhai scope', () => {
  test('the scope after a run has changed inputs and new top-level variables only', () => {
    const program = compileRhai(
      'count += 1; let doubled = count * 2; { let inner = 1; } items.push(4); doubled',
    );
    const out = runRhai(program, { count: 1, items: [1, 2, 3], untouched: 'x' });
    assert.equal(out.value, 4);
    assert.deepEqual(out.scope, { count: 2, items: [1, 2, 3, 4], untouched: 'x', doubled: 4 });
  });

  test('inputs are not mutated and a program runs again from scratch', () => {
    const program = compileRhai('items.push(1); let n = items.len(); n');
    const input = { items: [] as JsonValue[] };
    assert.equal(runRhai(program, input).value, 1);
    assert.equal(runRhai(program, input).value, 1);
    assert.deepEqual(input.items, []);
  });

  test('shadowing with let replaces the exported value', () => {
    const out = runRhai(compileRhai('let x = x + 1; let x = x * 10;'), { x: 1 });
    assert.deepEqual(out.scope, { x: 20 });
  });

  test('variables of an early return are exported as far as they were defined', () => {
    const out = runRhai(compileRhai('let a = 1; if a == 1 { return 5; } let b = 2;'), {});
    assert.deepEqual(out, { value: 5, scope: { a: 1 } });
  });

  test('functions cannot see outer variables; closures capture them', () => {
    assert.equal(kindOf('let x = 1; fn f() { x } f()'), 'ErrorInFunctionCall');
    assert.equal(value('let x = 1; let f = |y| x + y; x = 10; f.call(5)'), 15);
    assert.equal(value('let total = 0; [1, 2, 3].for_each(|| total += this); total'), 6);
  });
});

describe('rhai language', () => {
  test('values are copied on assignment', () => {
    assert.deepEqual(value('let a = [1, [2]]; let b = a; b[1].push(3); b.push(4); [a, b]'), [
      [1, [2]],
      [1, [2, 3], 4],
    ]);
    assert.deepEqual(value('let m = #{a: #{b: 1}}; let n = m.a; n.b = 2; m'), { a: { b: 1 } });
  });

  test('strings index by character, negative from the end', () => {
    assert.equal(value('let s = "héllo😀"; s[-1]'), '😀');
    assert.equal(value('let s = "héllo😀"; s.len()'), 6);
    assert.equal(value('let s = "abc"; s[1] = \'X\'; s'), 'aXc');
    assert.equal(value('`${1 + 1} and ${"x"}`'), '2 and x');
  });

  test('methods, this and function pointers', () => {
    assert.equal(value('fn inc(n) { this += n; } let x = 1; x.inc(2); x'), 3);
    assert.equal(value('fn add(a, b) { a + b } let f = Fn("add").curry(40); f.call(2)'), 42);
    assert.deepEqual(value('[3, 1, 2].map(|x| x * 2).filter(|x| x > 2)'), [6, 4]);
    assert.equal(value('[1, 2, 3].reduce(|sum, x| sum + x, 0)'), 6);
    assert.deepEqual(value('let a = [3, 1, 2]; a.sort(); a'), [1, 2, 3]);
  });

  test('control flow', () => {
    assert.equal(value('let r = 0; for (x, i) in [10, 20] { r += x * i } r'), 20);
    assert.equal(value('let v = loop { break 7; }; v'), 7);
    assert.equal(value('let n = 0; do { n += 1 } until n >= 3; n'), 3);
    assert.equal(value('switch 15 { 1 | 2 => "a", 10..20 => "b", _ => "c" }'), 'b');
    assert.equal(value('try { throw "bad" } catch (e) { `caught ${e}` }'), 'caught bad');
    assert.equal(value('fn f() { throw 42 } try { f() } catch (e) { e }'), 42);
    assert.equal(value('let m = #{a: 1}; m?.b?.c ?? "default"'), 'default');
    assert.equal(value('"b" in #{b: 1}'), true);
  });

  test('runtime errors carry the position of the failing expression', () => {
    try {
      evalRhai('let a = 1;\nlet b = a +\n  "x" * 2;');
      assert.fail('expected an error');
    } catch (e) {
      assert.ok(isRhaiError(e));
      assert.equal(e.kind, 'ErrorFunctionNotFound');
      assert.deepEqual([e.line, e.column], [3, 7]);
    }
  });
});
