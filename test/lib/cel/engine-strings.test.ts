import { describe, test } from 'node:test';
import { holds } from './helpers.js';

// cel-go strings extension: lowerAscii/upperAscii change ASCII letters only; trim removes leading
// and trailing Unicode White_Space.

describe('ASCII case conversion', () => {
  test('lowerAscii changes only A-Z', () => {
    holds("'ÀÉÎ Straße ABC'.lowerAscii() == 'ÀÉÎ straße abc'");
  });

  test('upperAscii changes only a-z', () => {
    holds("'àéî straße abc'.upperAscii() == 'àéî STRAßE ABC'");
  });
});

describe('trim', () => {
  test('removes Unicode White_Space at both ends', () => {
    holds("' \\t\\n\\u2003\\u3000\\u0085x y\\u00a0\\u2028'.trim() == 'x y'");
  });

  test('keeps characters that are not White_Space (zero-width, BOM, Mongolian vowel separator)', () => {
    holds("'\\ufeffx\\u200b'.trim() == '\\ufeffx\\u200b'");
    holds("'\\u180ex'.trim() == '\\u180ex'");
  });
});
