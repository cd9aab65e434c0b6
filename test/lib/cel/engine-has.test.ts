import { describe, test } from 'node:test';
import { holds } from './helpers.js';

// langdef.md "Field Selection": has(e.f) tests the presence of field f of the map or message e,
// where e is any expression.

describe('has() of a selection', () => {
  test('on a variable', () => {
    holds('has(m.a) && !has(m.b)', { m: { a: 1n } });
  });

  test('on a literal, a call or an index', () => {
    holds("has({'a': 1}.a) && !has({'a': 1}.b)");
    holds("has([{'a': 1}][0].a) && !has([{'a': 1}][0].b)");
    holds("has(optional.of({'a': 1}).value().a)");
  });
});
