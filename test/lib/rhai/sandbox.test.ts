import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evalRhai, isRhaiError } from '../../../src/lib/rhai/index.js';

describe('rhai sandbox', () => {
  test('__proto__ and constructor are ordinary map keys', () => {
    const { value } = evalRhai('let m = #{}; m["__proto__"] = #{polluted: true}; m.constructor = 1; m');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value));
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ['__proto__', 'constructor']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { polluted: true });
  });

  test('input objects with a __proto__ key stay plain data', () => {
    const input = JSON.parse('{"__proto__": {"isAdmin": true}, "a": 1}') as Record<string, never>;
    const { value } = evalRhai('let keys = data.keys(); data["__proto__"].isAdmin = false; [keys, data]', {
      data: input,
    });
    assert.deepEqual(JSON.stringify(value), '[["__proto__","a"],{"__proto__":{"isAdmin":false},"a":1}]');
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });

  test('properties of host objects are unreachable', () => {
    assert.equal(evalRhai('let m = #{}; m.constructor').value, null);
    assert.equal(evalRhai('let m = #{}; m["toString"]').value, null);
    assert.throws(
      () => evalRhai('"abc".constructor'),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorDotExpr',
    );
    assert.throws(
      () => evalRhai('[].__proto__'),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorDotExpr',
    );
  });

  test('there is no global object, process, require or timers', () => {
    for (const name of ['globalThis', 'process', 'require', 'setTimeout', 'Function', 'eval']) {
      assert.throws(
        () => evalRhai(`${name}`),
        (e: unknown) => isRhaiError(e) && (e.kind === 'ErrorVariableNotFound' || e.kind === 'ErrorParsing'),
        name,
      );
    }
    assert.throws(
      () => evalRhai('import "fs" as fs; 1'),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorModuleNotFound',
    );
  });

  test('function pointers to unknown names fail when called', () => {
    assert.throws(
      () => evalRhai('Fn("constructor").call()'),
      (e: unknown) => isRhaiError(e) && e.kind === 'ErrorFunctionNotFound',
    );
    assert.throws(
      () => evalRhai('Fn("a.b")'),
      (e: unknown) => isRhaiError(e),
    );
  });
});
