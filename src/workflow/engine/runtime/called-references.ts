import type {
  CalledElement,
  CalledElementModel,
  DecisionReference,
  DecisionReferenceModel,
} from '../model/index.js';
import { juelSource } from '../model/juel-text.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { JsonValue, TokenState } from './types.js';
import { tokenVariables } from './variables.js';

type Resolved<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * The process a call activity starts, its key and version evaluated in the token's scope when the
 * model gives them as expressions (Camunda 7 `calledElement="${…}"`, Zeebe `processId="=…"`).
 * A failure, or a value that is no key or version, is a message naming the element and the value.
 */
export function resolveCalledElement(
  run: Run,
  token: TokenState,
  elementId: string,
  called: CalledElementModel,
): Resolved<CalledElement> {
  const { processKeyExpression, versionExpression, ...rest } = called;
  const key = resolveKey(run, token, called.processKey, processKeyExpression, {
    what: `called element of '${elementId}'`,
    expected: 'a process key',
  });
  if (!key.ok) return key;
  const version = resolveVersion(run, token, called.version, versionExpression, {
    what: `called element version of '${elementId}'`,
  });
  if (!version.ok) return version;
  return { ok: true, value: { ...rest, processKey: key.value, version: version.value } };
}

/**
 * The decision a business rule task evaluates, its key and version evaluated in the token's scope
 * when the model gives them as expressions (Camunda 7 `camunda:decisionRef="${…}"`, Zeebe
 * `decisionId="=…"`). A failure, or a value that is no key or version, is a message naming the
 * element and the value.
 */
export function resolveDecisionReference(
  run: Run,
  token: TokenState,
  elementId: string,
  decision: DecisionReferenceModel,
): Resolved<DecisionReference> {
  const { decisionIdExpression, versionExpression, ...rest } = decision;
  const key = resolveKey(run, token, decision.decisionId, decisionIdExpression, {
    what: `decision reference of '${elementId}'`,
    expected: 'a decision key',
  });
  if (!key.ok) return key;
  const version = resolveVersion(run, token, decision.version, versionExpression, {
    what: `decision version of '${elementId}'`,
  });
  if (!version.ok) return version;
  return { ok: true, value: { ...rest, decisionId: key.value, version: version.value } };
}

function resolveKey(
  run: Run,
  token: TokenState,
  constant: string | null,
  expression: string | undefined,
  site: { what: string; expected: string },
): Resolved<string> {
  if (expression === undefined) {
    return constant === null
      ? { ok: false, message: `${site.what} has neither a key nor an expression` }
      : { ok: true, value: constant };
  }
  const result = evaluate(run, token, expression, site.what);
  if (!result.ok) return result;
  const value = result.value;
  if (typeof value === 'string' && value.trim() !== '') return { ok: true, value: value.trim() };
  return {
    ok: false,
    message: `${site.what}: ${shown(expression)} gives ${describe(value)}, which is not ${site.expected} (a text that is not empty)`,
  };
}

// As Camunda 7, a version is a whole number or a text of digits; weft's versions start at 1.
function resolveVersion(
  run: Run,
  token: TokenState,
  constant: string | null,
  expression: string | undefined,
  site: { what: string },
): Resolved<string | null> {
  if (expression === undefined) return { ok: true, value: constant };
  const result = evaluate(run, token, expression, site.what);
  if (!result.ok) return result;
  const value = result.value;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*[0-9]{1,9}\s*$/.test(value)
        ? Number(value)
        : NaN;
  if (Number.isSafeInteger(number) && number >= 1) return { ok: true, value: String(number) };
  return {
    ok: false,
    message: `${site.what}: ${shown(expression)} gives ${describe(value)}, which is not a version number (a whole number of 1 or more)`,
  };
}

function evaluate(run: Run, token: TokenState, expression: string, what: string): Resolved<JsonValue> {
  const result = evaluateExpression(
    expression,
    tokenVariables(run.state, token),
    expressionScope(run, token),
  );
  return result.ok ? result : { ok: false, message: `${what}: ${result.message}` };
}

// The expression as the model's author wrote it: JUEL as is, FEEL after Zeebe's `=`.
function shown(expression: string): string {
  return juelSource(expression) ?? `=${expression}`;
}

const MAX_SHOWN = 100;

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  const text = JSON.stringify(value);
  const kind = Array.isArray(value)
    ? 'a list'
    : typeof value === 'object'
      ? 'a context'
      : `a ${typeof value}`;
  const cut = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
  return `${kind} ${cut}`;
}
