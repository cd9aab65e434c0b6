import assert from 'node:assert/strict';
import type { JuelContext } from '../../../src/lib/juel/index.js';
import { compileJuel, evaluateJuel } from '../../../src/lib/juel/index.js';

/** The fixed time of every test clock. */
export const NOW = new Date('2025-01-01T10:00:00.000Z');

/** A context over these variables with a fixed clock. */
export function contextWith(
  variables: Record<string, unknown>,
  extra: Partial<JuelContext> = {},
): JuelContext {
  return { variables, clock: () => NOW, ...extra };
}

/** Compiles (asserting it compiles) and evaluates; returns the result. */
export function run(text: string, context: JuelContext): ReturnType<typeof evaluateJuel> {
  const compiled = compileJuel(text);
  assert.ok(compiled.ok, `${text} should compile: ${compiled.ok ? '' : compiled.message}`);
  return evaluateJuel(compiled.expression, context);
}

/** The value of a text that must evaluate. */
export function valueOf(text: string, context: JuelContext): unknown {
  const result = run(text, context);
  assert.ok(result.ok, `${text} should evaluate: ${result.ok ? '' : result.message}`);
  return result.value;
}

/** The evaluation error of a text that compiles but must not evaluate. */
export function evaluationError(text: string, context: JuelContext): string {
  const result = run(text, context);
  assert.ok(!result.ok, `${text} should fail, gave ${JSON.stringify(result.ok ? result.value : null)}`);
  return result.message;
}
