import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  compareDecimals,
  int64Text,
  parseDecimal,
  roundTrips,
} from '../../src/platform/json/decimal-text.js';
import { findInexactNumbers, replaceRootMembers } from '../../src/platform/json/inexact-numbers.js';

describe('numbers JSON.parse would change', () => {
  test('roundTrips tells digits and ranges a double keeps from those it loses', () => {
    for (const text of [
      '0',
      '-0',
      '1',
      '0.1',
      '1.0',
      '1e21',
      '1E+21',
      '-2.5e-10',
      '9007199254740991',
      '5e-324',
      '1.7976931348623157e308',
      '0.30000000000000004',
      '123456789012345.0000',
    ])
      assert.equal(roundTrips(text), true, text);
    for (const text of [
      '9007199254740993',
      '0.1234567890123456789',
      '1e400',
      '-1e400',
      '1e-400',
      '12345678901234567',
      '1.00000000000000001',
    ])
      assert.equal(roundTrips(text), false, text);
  });

  test('every double printed by JavaScript round-trips (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) =>
        roundTrips(JSON.stringify(value)),
      ),
      { numRuns: 2000 },
    );
  });

  test('findInexactNumbers names each lost number by its path, skipping strings and keys', () => {
    const json =
      '{"a\\"9007199254740993":"9007199254740993 \\\\","list":[0.1,[1, 12345678901234567]],"n":{"deep":{"x":1e400}},"ok":12}';
    const found = findInexactNumbers(json);
    assert.deepEqual(found?.numbers, [
      { path: ['list', '1', '1'], text: '12345678901234567' },
      { path: ['n', 'deep', 'x'], text: '1e400' },
    ]);
    assert.deepEqual(
      [...(found?.members ?? [])],
      [
        ['list', '[0.1,[1, 12345678901234567]]'],
        ['n', '{"deep":{"x":1e400}}'],
      ],
    );
    assert.deepEqual(findInexactNumbers('[9007199254740993]')?.numbers, [
      { path: ['0'], text: '9007199254740993' },
    ]);
    assert.deepEqual(findInexactNumbers('9007199254740993')?.numbers, [
      { path: [], text: '9007199254740993' },
    ]);
  });

  test('bodies whose numbers all survive give null, however many digits their strings hold', () => {
    assert.equal(findInexactNumbers('{"a":1,"b":[0.5,1e21],"c":"12345678901234567890","d":"1e400"}'), null);
    assert.equal(findInexactNumbers('{"uuid":"3f1c2a4e-8d2b-4c55-9a0e-0d6c1e2f3a4b","amount":1250.5}'), null);
  });

  test('replaceRootMembers rewrites only the named members of the root object, byte for byte elsewhere', () => {
    const json = '{"a" : 9007199254740993, "b": {"a": 1, "c": [2]}, "c":"x,}", "d": 0.1234567890123456789}';
    assert.equal(
      replaceRootMembers(json, new Set(['b', 'c', 'missing']), 'null'),
      '{"a" : 9007199254740993, "b":null, "c":null, "d": 0.1234567890123456789}',
    );
  });

  test('exact decimal arithmetic: ordering and 64-bit integer text', () => {
    const d = (text: string) => parseDecimal(text)!;
    assert.ok(compareDecimals(d('1.00000000000000000001'), d('1')) > 0);
    assert.ok(compareDecimals(d('-1.00000000000000000001'), d('-1')) < 0);
    assert.equal(compareDecimals(d('100'), d('1e2')), 0);
    assert.ok(compareDecimals(d('0'), d('-0.0000001')) > 0);
    assert.deepEqual(int64Text(d('9007199254740993')), { text: '9007199254740993' });
    assert.deepEqual(int64Text(d('9.223372036854775807e18')), { text: '9223372036854775807' });
    assert.deepEqual(int64Text(d('9223372036854775808')), { problem: 'range' });
    assert.deepEqual(int64Text(d('-9223372036854775808')), { text: '-9223372036854775808' });
    assert.deepEqual(int64Text(d('1.5')), { problem: 'fraction' });
    assert.deepEqual(int64Text(d('1e400')), { problem: 'range' });
  });
});
