import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai, isRhaiError } from '../../../src/lib/rhai/index.js';

// A BLOB leaves a script as the array of its bytes.
const value = (src: string): JsonValue => evalRhai(src).value;
const kindOf = (src: string, limits = {}): string => {
  try {
    evalRhai(src, {}, limits);
  } catch (e) {
    assert.ok(isRhaiError(e));
    return e.kind;
  }
  return 'none';
};

describe('rhai BLOB writers and parsers (book: BLOBs, "Write/Parse")', () => {
  test('write_utf8 writes the UTF-8 bytes that fit the window, leaving the rest', () => {
    assert.deepEqual(
      value('let b = blob(6, 0x2a); b.write_utf8(1..4, "héllo"); b'),
      [42, 104, 195, 169, 42, 42],
    );
    assert.deepEqual(value('let b = blob(4); b.write_utf8(2, 10, "abc"); b'), [0, 0, 97, 98]);
    assert.deepEqual(value('let b = blob(4); b.write_utf8(-2, 2, "xyz"); b'), [0, 0, 120, 121]);
    assert.deepEqual(value('let b = blob(3); b.write_utf8(0..=1, "xyz"); b'), [120, 121, 0]);
  });

  test('write_ascii skips non-ASCII characters', () => {
    assert.deepEqual(value('let b = blob(4); b.write_ascii(0, 4, "héllo"); b'), [104, 108, 108, 111]);
  });

  test('write_le / write_be write INTs and FLOATs; parse_*_float reads them back', () => {
    assert.deepEqual(value('let b = blob(4); b.write_le(0, 4, 0x01020304); b'), [4, 3, 2, 1]);
    assert.deepEqual(value('let b = blob(4); b.write_be(0..4, 0x0102030405060708); b'), [1, 2, 3, 4]);
    assert.deepEqual(value('let b = blob(8); b.write_le(0, 8, 1.5); b'), [0, 0, 0, 0, 0, 0, 248, 63]);
    assert.deepEqual(value('let b = blob(8); b.write_be(0..8, 1.5); b'), [63, 248, 0, 0, 0, 0, 0, 0]);
    assert.equal(value('let b = blob(8); b.write_be(0, 8, -2.25); b.parse_be_float(0, 8)'), -2.25);
    assert.equal(value('let b = blob(8); b.write_le(0..8, 0.1); b.parse_le_float(0..8)'), 0.1);
  });
});

describe('rhai BLOB editing (book: BLOBs, built-in functions)', () => {
  test('push, append, insert store the low byte; append takes strings, chars and BLOBs', () => {
    assert.deepEqual(value('let b = blob(1, 1); b.push(0x102); b.insert(0, 9); b'), [9, 1, 2]);
    assert.deepEqual(
      value('let b = blob(); b.append(1); b.append("é"); b.append(\'!\'); b.append(blob(1, 7)); b'),
      [1, 195, 169, 33, 7],
    );
    assert.equal(kindOf('let b = blob(); b.append([1, 2]);'), 'ErrorFunctionNotFound');
  });

  test('+= and + append like append', () => {
    assert.deepEqual(
      value('let b = blob(1, 1); b += 2; b += "A"; b += \'B\'; b += blob(1, 3); b'),
      [1, 2, 65, 66, 3],
    );
    assert.deepEqual(value("let b = blob(1, 1); let c = b + 'x'; [b.len(), c.len()]"), [1, 2]);
  });

  test('pop, shift, remove, get and set; out-of-range positions give 0 or do nothing', () => {
    assert.deepEqual(
      value('let b = blob(); b += 1; b += 2; b += 3; b += 4; [b.pop(), b.shift(), b.remove(-1), b.len()]'),
      [4, 1, 3, 1],
    );
    assert.deepEqual(value('let b = blob(); [b.pop(), b.shift(), b.remove(0), b.get(5)]'), [0, 0, 0, 0]);
    assert.deepEqual(
      value('let b = blob(3); b.set(-1, 0x1ff); b.set(9, 1); [b.get(-1), b.get(2)]'),
      [255, 255],
    );
  });

  test('extract, split, drain, retain and splice', () => {
    const b = 'let b = blob(); for i in 0..6 { b += i; } ';
    assert.deepEqual(value(`${b} b.extract(1, 2)`), [1, 2]);
    assert.deepEqual(value(`${b} b.extract(-2)`), [4, 5]);
    assert.deepEqual(value(`${b} b.extract(2..=3)`), [2, 3]);
    assert.deepEqual(value(`${b} let t = b.split(4); [b, t]`), [
      [0, 1, 2, 3],
      [4, 5],
    ]);
    assert.deepEqual(value(`${b} let d = b.drain(1..3); [b, d]`), [
      [0, 3, 4, 5],
      [1, 2],
    ]);
    assert.deepEqual(value(`${b} let r = b.retain(1, 2); [b, r]`), [
      [1, 2],
      [0, 3, 4, 5],
    ]);
    assert.deepEqual(value(`${b} b.splice(1..3, blob(1, 9)); b`), [0, 9, 3, 4, 5]);
    assert.deepEqual(value(`${b} b.splice(2, 0, blob(1, 9)); b`), [0, 1, 2, 3, 4, 5, 9]);
  });

  test('pad, truncate, chop, reverse, clear, contains, as_string', () => {
    assert.deepEqual(value('let b = blob(2, 1); b.pad(4, 2); b'), [1, 1, 2, 2]);
    assert.deepEqual(
      value('let b = blob(); for i in 0..5 { b += i; } b.truncate(3); b.reverse(); b'),
      [2, 1, 0],
    );
    assert.deepEqual(value('let b = blob(); for i in 0..5 { b += i; } b.chop(2); b'), [3, 4]);
    assert.deepEqual(value('let b = blob(3); b.clear(); b'), []);
    assert.deepEqual(value('let b = blob(2, 7); [b.contains(7), b.contains(0x107), b.contains(8)]'), [
      true,
      true,
      false,
    ]);
    assert.equal(value('let b = blob(); b += "héllo"; b.as_string()'), 'héllo');
    assert.equal(value('let b = blob(); b += 0xff; b.as_string()'), '\ufffd');
  });

  test('growing past max_array_size is an error', () => {
    assert.equal(kindOf('let b = blob(3); b.pad(10, 0);', { maxArraySize: 5 }), 'ErrorDataTooLarge');
    assert.equal(kindOf('let b = blob(5); b.push(1);', { maxArraySize: 5 }), 'ErrorDataTooLarge');
  });

  test('debug text groups the hex digits eight bytes at a time', () => {
    assert.equal(value('let b = blob(); for i in 0..10 { b += i; } b.to_debug()'), '[0001020304050607 0809]');
  });
});
