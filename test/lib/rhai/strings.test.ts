import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai } from '../../../src/lib/rhai/index.js';

const value = (src: string): JsonValue => evalRhai(src).value;

describe('rhai chars (book: strings, "chars")', () => {
  test('chars over the whole string, from a start, a start and length, or a range', () => {
    assert.deepEqual(value('"hello".chars()'), ['h', 'e', 'l', 'l', 'o']);
    assert.deepEqual(value('"hello".chars'), ['h', 'e', 'l', 'l', 'o']);
    assert.deepEqual(value('"hello".chars(1..3)'), ['e', 'l']);
    assert.deepEqual(value('"hello".chars(1..=3)'), ['e', 'l', 'l']);
    assert.deepEqual(value('"hello".chars(1, 2)'), ['e', 'l']);
    assert.deepEqual(value('"hello".chars(3)'), ['l', 'o']);
    assert.deepEqual(value('"hello".chars(-3)'), ['l', 'l', 'o']);
    assert.deepEqual(value('"hello".chars(-3, 1)'), ['l']);
    assert.deepEqual(value('"hello".chars(2, 0)'), []);
    assert.deepEqual(value('"héllo".chars(0..10)'), ['h', 'é', 'l', 'l', 'o']);
  });

  test('chars drive a for loop', () => {
    assert.equal(value('let s = ""; for c in "hello".chars(1..=3) { s += c } s'), 'ell');
  });
});

describe('rhai strings to BLOBs and splitting at whitespace', () => {
  test('to_blob gives the UTF-8 bytes; split() splits at whitespace, an empty string is one part', () => {
    assert.deepEqual(value('"hé".to_blob()'), [104, 195, 169]);
    assert.equal(value('"hé".to_blob().as_string()'), 'hé');
    assert.deepEqual(value('"a b  c\td".split()'), ['a', 'b', 'c', 'd']);
    assert.deepEqual(value('"".split()'), ['']);
  });
});

describe('rhai string interpolation (book: strings, "String Interpolation")', () => {
  test('spaces and newlines around the expression do not reach the text', () => {
    assert.equal(value('let x = 42; `x = ${x }, y = ${ x + 1 }`'), 'x = 42, y = 43');
    assert.equal(value('let a = 1; let b = 2; `${a}${b} ${a} ${ b }`'), '12 1 2');
    assert.equal(value('`multi ${\n  1 + 1\n} line`'), 'multi 2 line');
  });

  test('map literals, blocks and nested interpolations inside ${...}', () => {
    assert.equal(value('`${ #{a: 1} }`'), '#{"a": 1}');
    assert.equal(value('`m=${#{a: #{b: 2}}.a.b}`'), 'm=2');
    assert.equal(value('`a ${ if true { 1 } else { 2 } } b`'), 'a 1 b');
    assert.equal(value('`${ `inner ${1}` }`'), 'inner 1');
    assert.equal(value('`${ "x}" }`'), 'x}');
  });

  test('values use their display text: () is empty, chars and strings are bare', () => {
    assert.equal(value('`[${()}] [${\'c\'}] [${[1, "s"]}] [${2.0}]`'), '[] [c] [[1, "s"]] [2.0]');
  });
});
