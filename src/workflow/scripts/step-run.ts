import type { JsonValue, ScriptStep, StepError, Variables } from './types.js';

/** What a language adapter returns for one step; the executor adds the duration. */
export type StepRun =
  { status: 'ok'; output: JsonValue; changes: Variables } | { status: 'error'; error: StepError };

/** A step error without a position. */
export function stepError(
  message: string,
  line: number | null = null,
  column: number | null = null,
): StepRun {
  return { status: 'error', error: { message, line, column } };
}

/** The step's result variable, when it names one. */
export function resultVariableOf(step: ScriptStep): string | null {
  const name = step.resultVariable;
  return typeof name === 'string' && name.trim() !== '' ? name : null;
}

/** A one-key change object; built with a literal so a `__proto__` name stays an own key. */
export function singleChange(name: string, value: JsonValue): Variables {
  return Object.fromEntries<JsonValue>([[name, value]]);
}

/** The kind of a JSON value as jq and users name it. */
export function jsonKind(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
