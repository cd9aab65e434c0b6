import { describe, test } from 'node:test';
import { fails, holds } from './helpers.js';

// cel-spec optionals: selecting on an optional yields an optional, none when a step is absent;
// selecting a field of a present value without fields is an error.

describe('optional selection', () => {
  test('selecting on none is none', () => {
    holds('!optional.none().?name.hasValue() && !optional.none()[?1].hasValue()');
    holds("!{}.?a.b.hasValue() && {}.?a.b.orValue('fallback') == 'fallback'");
  });

  test('an absent field of a present optional map is none', () => {
    holds("optional.of({'a': {}}).a.b.orValue(7) == 7");
    holds("optional.of({'a': {'b': 1}}).a.b.value() == 1");
  });

  test('selecting a field of a present null or number is an error', () => {
    fails("{'k': dyn(null)}.?k.f.hasValue()", /No such key/);
    fails("{'k': dyn(1)}.?k.f.hasValue()", /No such key/);
  });
});

describe('has() with optionals', () => {
  test('asks whether an optional selection holds a value', () => {
    holds("has(optional.of({'a': 1}).a) && !has(optional.of({'a': 1}).b)");
    holds("!has({'x': optional.none()}.x.y)");
  });

  test('an optional stored in a map is a present value', () => {
    holds("has({'x': optional.none()}.x)");
  });
});
