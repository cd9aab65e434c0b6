import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai } from '../../../src/lib/rhai/index.js';

const value = (src: string): JsonValue => evalRhai(src).value;

describe('rhai INTs as bit-fields (book: "Integer as Bit-Fields")', () => {
  test('get_bit and set_bit; a negative position counts from bit 63', () => {
    assert.deepEqual(value('let x = 5; [x.get_bit(0), x.get_bit(1), x.get_bit(-64)]'), [true, false, true]);
    assert.equal(value('let x = 5; x.set_bit(1, true); x.set_bit(0, false); x'), 6);
    assert.equal(value('let x = 0; x.set_bit(-1, true); x < 0'), true);
    assert.throws(() => value('let x = 5; x.get_bit(64)'), { kind: 'ErrorBitFieldBounds' });
    assert.throws(() => value('let x = 0; x.set_bit(1, 1)'), { kind: 'ErrorFunctionNotFound' });
  });

  test('get_bits and set_bits over (start, bits) or a range', () => {
    assert.deepEqual(
      value('let x = 0xff00; [x.get_bits(8..12), x.get_bits(8..=15), x.get_bits(8, 4)]'),
      [15, 255, 15],
    );
    assert.equal(value('let x = 0; x.set_bits(4..8, 0xff); x'), 0xf0);
    assert.equal(value('let x = 0; x.set_bits(4..=7, 0xf); x'), 0xf0);
    assert.equal(value('let x = 0; x.set_bits(-4, 4, 0xf); x.get_bits(60, 4)'), 15);
  });

  test('all 64 bits come back as the INT itself; no bits is 0 without a bounds check', () => {
    assert.equal(value('let x = -1; x.get_bits(0, 64)'), -1);
    assert.equal(value('let x = 0xff; x.get_bits(70, 0)'), 0);
    assert.throws(() => value('let x = 0; x.get_bits(0..=64)'), { kind: 'ErrorBitFieldBounds' });
  });
});
