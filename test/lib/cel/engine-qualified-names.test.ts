import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Environment } from '../../../src/lib/cel-engine/index.js';
import { holds, run } from './helpers.js';

// langdef.md "Name Resolution": a qualified name `a.b.c` resolves to the longest prefix that names
// a variable; the rest of it selects fields.

describe('qualified variable names', () => {
  test('a bound dotted name is one variable', () => {
    assert.equal(run('x.y.z', { 'x.y.z': 'whole' }), 'whole');
  });

  test('the longest prefix that names a variable wins; the rest selects', () => {
    assert.equal(run('x.y.z', { 'x.y': { z: 'from x.y' }, x: { y: { z: 'from x' } } }), 'from x.y');
    assert.equal(run('x.y.z', { x: { y: { z: 'from x' } } }), 'from x');
  });

  test('a registered dotted variable resolves in a checked environment', () => {
    const env = new Environment().registerVariable('team.lead', 'string');
    assert.equal(env.check('team.lead').type, 'string');
    assert.equal(env.evaluate('team.lead.size()', { 'team.lead': 'ada' }), 3n);
  });

  test('a loop variable shadows the dotted names that start with it', () => {
    holds("[{'b': 1}].all(a, a.b == 1)", { 'a.b': 2n });
  });
});
