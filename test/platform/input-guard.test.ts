import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { databaseInputFailure } from '../../src/platform/http/database-input-error.js';
import { findHostileInput } from '../../src/platform/http/input-guard.js';
import { forbiddenCharacterReference, unstorableCharacter } from '../../src/platform/text/unstorable-text.js';

const parts = (body: unknown, query: unknown = {}) => ({ params: {}, querystring: query, headers: {}, body });

describe('unstorable text', () => {
  test('NUL and unpaired surrogates are named; paired surrogates and other text pass', () => {
    assert.match(unstorableCharacter('a\u0000b') ?? '', /NUL/);
    assert.match(unstorableCharacter('\ud800') ?? '', /surrogate/);
    assert.match(unstorableCharacter('x\udc00') ?? '', /surrogate/);
    assert.match(unstorableCharacter('\ud83d\ud83d\ude00') ?? '', /surrogate/);
    assert.equal(unstorableCharacter('emoji \ud83d\ude00 ok'), null);
    assert.equal(unstorableCharacter('plain ü ß 東京'), null);
  });

  test('XML character references to NUL, surrogates or past U+10FFFF are refused', () => {
    for (const reference of ['&#0;', '&#000;', '&#x0;', '&#X00;', '&#xD800;', '&#57343;', '&#x110000;'])
      assert.notEqual(forbiddenCharacterReference(`<a name="${reference}"/>`), null, reference);
    assert.equal(forbiddenCharacterReference('<a name="&#65;&#x1F600;&amp;"/>'), null);
  });
});

describe('the request guard', () => {
  test('finds NUL in a nested value or key and names where it is', () => {
    const failure = findHostileInput(parts({ variables: { list: ['ok', 'a\u0000'] } }), 128);
    assert.deepEqual(failure?.errors, [
      { path: 'body.variables.list.1', message: 'contains a NUL character (U+0000)' },
    ]);
    const key = findHostileInput(parts({ variables: { 'k\ud800': 1 } }), 128);
    assert.equal(key?.errors[0]?.path, 'body.variables');
    const query = findHostileInput(parts(undefined, { actor: 'a\u0000' }), 128);
    assert.equal(query?.errors[0]?.path, 'querystring.actor');
  });

  test('refuses nesting beyond the limit without recursing, and accepts it up to the limit', () => {
    const nest = (depth: number) => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    assert.equal(findHostileInput(parts(nest(128)), 128), null);
    assert.match(findHostileInput(parts(nest(129)), 128)?.message ?? '', /deeper than 128/);
    assert.notEqual(findHostileInput(parts(nest(200_000)), 128), null);
  });
});

describe('database errors caused by input', () => {
  const pgError = (code: string) => Object.assign(new Error('db'), { code, severity: 'ERROR' });

  test('data exceptions, foreign keys and program limits are client errors; others are not', () => {
    for (const code of ['22P02', '22003', '22007', '22008', '22021', '22P05', '2201X', '23503', '54000'])
      assert.equal(databaseInputFailure(pgError(code))?.kind, 'validation', code);
    for (const code of ['23505', '40001', '42P01', '08006', 'ECONNRESET'])
      assert.equal(databaseInputFailure(pgError(code)), null, code);
    assert.equal(databaseInputFailure(new Error('wrapped', { cause: pgError('22008') }))?.kind, 'validation');
    assert.equal(databaseInputFailure('text'), null);
  });
});
