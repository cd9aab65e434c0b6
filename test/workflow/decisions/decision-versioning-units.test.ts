import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledCache } from '../../../src/workflow/decisions/compiled-cache.js';
import { decisionFingerprint } from '../../../src/workflow/decisions/decision-fingerprint.js';
import { parseDmn } from '../../../src/lib/dmn/index.js';
import { depthExceeds } from '../../../src/workflow/decisions/variable-depth.js';
import { definitions, inputData, literalDecision } from '../../lib/dmn/dmn-fixtures.js';

describe('CompiledCache', () => {
  const loader =
    (value: string, weight = 1) =>
    () =>
      Promise.resolve({ value, weight });

  test('keeps the most recently used entries within the entry bound', async () => {
    const cache = new CompiledCache<string>({ maxEntries: 2, maxWeight: 100 });
    await cache.get('a', loader('A'));
    await cache.get('b', loader('B'));
    await cache.get('a', loader('stale'));
    await cache.get('c', loader('C'));
    assert.equal(cache.size, 2);
    assert.equal(await cache.get('a', loader('reloaded')), 'A', 'a was used recently: kept');
    assert.equal(await cache.get('b', loader('reloaded')), 'reloaded', 'b was evicted');
  });

  test('evicts by total weight, and does not keep an entry heavier than the bound', async () => {
    const cache = new CompiledCache<string>({ maxEntries: 10, maxWeight: 10 });
    await cache.get('a', loader('A', 6));
    await cache.get('b', loader('B', 6));
    assert.equal(cache.size, 1);
    assert.equal(await cache.get('huge', loader('H', 11)), 'H');
    assert.equal(cache.size, 1);
    assert.equal(await cache.get('b', loader('again')), 'B');
  });

  test('shares a load in flight and does not cache a failure', async () => {
    const cache = new CompiledCache<string>({ maxEntries: 10, maxWeight: 10 });
    let loads = 0;
    const slow = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { value: 'V', weight: 1 };
    };
    assert.deepEqual(await Promise.all([cache.get('k', slow), cache.get('k', slow)]), ['V', 'V']);
    assert.equal(loads, 1);
    await assert.rejects(
      cache.get('f', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await cache.get('f', loader('ok')), 'ok');
  });
});

describe('decisionFingerprint', () => {
  const model = (body: string) => {
    const { definitions: parsed, problems } = parseDmn(definitions(body));
    assert.deepEqual(problems, []);
    return parsed;
  };
  const base = inputData('in_a', 'a', 'number');
  const needsA = (text: string) => literalDecision('child', 'Child', text, { inputs: ['in_a'] });
  const parent = (text = 'Child * 2') => literalDecision('parent', 'Parent', text, { decisions: ['child'] });
  const other = (text: string) => literalDecision('other', 'Other', text);

  test('ignores formatting and decisions that are not required', () => {
    const one = model(base + needsA('a + 1') + other('1'));
    const two = model(`\n${base}\n   ${needsA('a + 1')}\n${other('2')}`);
    assert.equal(decisionFingerprint(one, 'child'), decisionFingerprint(two, 'child'));
    assert.notEqual(decisionFingerprint(one, 'other'), decisionFingerprint(two, 'other'));
  });

  test('changes with the decision logic, a required decision, or an input type', () => {
    const reference = model(base + needsA('a + 1') + parent());
    const childChanged = model(base + needsA('a + 2') + parent());
    const typeChanged = model(inputData('in_a', 'a', 'string') + needsA('a + 1') + parent());
    const id = (m: typeof reference, key: string) => decisionFingerprint(m, key);
    assert.notEqual(id(reference, 'parent'), id(childChanged, 'parent'), 'required decision changed');
    assert.notEqual(id(reference, 'child'), id(typeChanged, 'child'), 'input type changed');
    assert.notEqual(
      id(reference, 'parent'),
      id(model(base + needsA('a + 1') + parent('Child * 3')), 'parent'),
    );
  });

  test('changes when the names of the file change (they decide which variables are free)', () => {
    const without = model(base + needsA('a + 1'));
    const withInput = model(base + inputData('in_b', 'b') + needsA('a + 1'));
    assert.notEqual(decisionFingerprint(without, 'child'), decisionFingerprint(withInput, 'child'));
  });
});

describe('depthExceeds', () => {
  test('measures nesting of objects and arrays without recursion', () => {
    assert.equal(depthExceeds({ a: 1 }, 1), false);
    assert.equal(depthExceeds({ a: { b: 1 } }, 1), true);
    assert.equal(depthExceeds([[[1]]], 3), false);
    assert.equal(depthExceeds([[[[1]]]], 3), true);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(depthExceeds(deep, 64), true);
    assert.equal(depthExceeds('text', 0), false);
  });
});
