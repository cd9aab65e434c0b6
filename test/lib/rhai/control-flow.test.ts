import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai } from '../../../src/lib/rhai/index.js';

const value = (src: string): JsonValue => evalRhai(src).value;

describe('rhai switch expressions (book: switch)', () => {
  test('a switch yields the value of the matching arm, a block arm its last expression', () => {
    assert.equal(value('let x = switch 2 { 1 => "a", 2 => "b", _ => "c" }; x'), 'b');
    assert.equal(value('switch "b" { "a" => 1, "b" => { let y = 10; y * 2 }, _ => 0 }'), 20);
    assert.equal(value('let x = 5; switch x { 1..3 => "low", 3..=5 if x > 4 => "five", _ => "?" }'), 'five');
    assert.equal(value('switch 4 { 1 | 2 => "small", 3 | 4 => "medium", _ => "large" }'), 'medium');
  });

  test('no matching arm and no default gives ()', () => {
    assert.equal(value('let r = switch 3 { 1 => 1 }; r'), null);
  });

  test('cases match by type: a FLOAT does not match an INT case', () => {
    assert.equal(value('switch 2.0 { 2 => "int", _ => "other" }'), 'other');
  });

  test('a switch is an operand of other expressions', () => {
    assert.equal(value('1 + switch 1 { 1 => 10, _ => 0 } * 2'), 21);
  });
});

describe('rhai break and continue (book: loop, while, do, for)', () => {
  test('break and continue act on the innermost loop of every form', () => {
    assert.equal(
      value(
        'let n = 0; for i in 0..3 { let j = 0; loop { j += 1; if j > 2 { break; } if j == 1 { continue; } n += 10 * i + j; } } n',
      ),
      36,
    );
    assert.deepEqual(
      value(
        'let out = []; let i = 0; do { i += 1; let j = 0; while true { j += 1; if j == 2 { continue; } if j > 3 { break; } out.push(i * 10 + j); } } until i == 2; out',
      ),
      [11, 13, 21, 23],
    );
    assert.equal(
      value('let i = 0; let n = 0; do { i += 1; if i == 3 { continue; } n += i; } while i < 5; n'),
      12,
    );
  });

  test('break carries a value out of any loop; a loop that ends normally gives ()', () => {
    assert.equal(value('let i = 0; loop { i += 1; if i > 4 { break i * 10; } }'), 50);
    assert.equal(value('for x in 0..10 { if x == 7 { break x; } }'), 7);
    assert.equal(value('while true { break 42; }'), 42);
    assert.equal(value('do { break 7; } while true'), 7);
    assert.equal(value('loop { let y = for k in 0..10 { if k == 3 { break k * 2; } }; break y + 1; }'), 7);
    assert.equal(value('for k in 0..3 { }'), null);
  });
});

describe('rhai assignment targets (book: assignments, indexing, properties)', () => {
  test('nested index and property chains are assignable, with compound operators', () => {
    assert.deepEqual(
      value('let a = [#{v: [1, 2]}, #{v: [3]}]; let i = 1; a[i].v[0] = 100; a[i - 1].v += [9]; a'),
      [{ v: [1, 2, 9] }, { v: [100] }],
    );
    assert.deepEqual(value('let m = #{list: [#{n: 1}]}; m.list[0].n *= 5; m["list"][0]["n"] -= 1; m'), {
      list: [{ n: 4 }],
    });
    assert.equal(value('let s = "abc"; s[1] = \'X\'; s'), 'aXc');
  });

  test('bit fields of an INT are assignable by index and range', () => {
    assert.equal(value('let x = 0; x[3] = true; x[0..2] = 3; x'), 11);
  });
});

describe('rhai operator precedence with bit operators (book: operators)', () => {
  test('shifts bind tighter than arithmetic, & tighter than | and ^, comparisons tighter than &', () => {
    assert.equal(value('1 << 2 + 1'), 5);
    assert.equal(value('1 + 2 | 4 & 5'), 7);
    assert.equal(value('1 | 2 ^ 3 & 4'), 3);
    assert.equal(value('(1 << 4) >> 2 & 0xf'), 4);
    assert.equal(value('let x = 0b1010; x[1..4] | 1'), 5);
    assert.equal(value('let x = 0b1100; x[2] && x[3] || false'), true);
    // `==` binds tighter than `&`, so this is INT & bool, which has no operator.
    assert.throws(() => value('3 & 1 == 1'), { kind: 'ErrorFunctionNotFound' });
    assert.equal(value('(3 & 1) == 1'), true);
  });
});
