import assert from 'node:assert/strict';
import { Environment } from '../../../src/lib/cel-engine/index.js';

/** The forked engine with optional types and mixed literals, as weft runs it, variables dyn. */
export const engine = new Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
  enableOptionalTypes: true,
});

/** The value of a CEL expression on the forked engine. */
export function run(expression: string, bindings: Record<string, unknown> = {}): unknown {
  return engine.evaluate(expression, bindings);
}

/** Asserts that an expression evaluates to true. */
export function holds(expression: string, bindings: Record<string, unknown> = {}): void {
  assert.equal(run(expression, bindings), true, expression);
}

/** Asserts that evaluating an expression fails with a message matching `message`. */
export function fails(expression: string, message: RegExp = /./): void {
  assert.throws(() => run(expression), message, expression);
}
