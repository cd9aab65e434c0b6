import type { UserTaskModel } from '../model/index.js';
import { isJuelText } from '../../../lib/juel/index.js';
import { juelSource, markJuel } from '../model/juel-text.js';
import { evaluateExpression, type ExpressionScope } from './expression.js';
import type { JsonValue, UserTaskWait, Variables } from './types.js';

/** The assignment fields of a user task wait, or why one of them could not be evaluated. */
export type Assignment =
  | {
      ok: true;
      value: Pick<
        UserTaskWait,
        'assignee' | 'candidateGroups' | 'candidateUsers' | 'dueDate' | 'followUpDate'
      >;
    }
  | { ok: false; message: string };

/**
 * Evaluates a user task's assignee, candidate groups and users, due and follow-up dates from their
 * expressions. A single name where a list is expected is taken as a one-item list (a JUEL text is
 * split at its commas, as Camunda 7 splits `${…}` giving "a, b"); any other shape is an error, so a
 * typo in the model shows up as an incident rather than an unassigned task.
 */
export function evaluateAssignment(
  task: UserTaskModel,
  variables: Variables,
  scope: ExpressionScope,
): Assignment {
  const at = { variables, scope };
  try {
    return {
      ok: true,
      value: {
        assignee: text(task.assignee, 'assignee', at),
        candidateGroups: names(task.candidateGroups, 'candidate groups', at),
        candidateUsers: names(task.candidateUsers, 'candidate users', at),
        dueDate: text(task.dueDate, 'due date', at),
        followUpDate: text(task.followUpDate, 'follow-up date', at),
      },
    };
  } catch (error) {
    if (error instanceof AssignmentError) return { ok: false, message: error.message };
    throw error;
  }
}

class AssignmentError extends Error {}

interface Site {
  variables: Variables;
  scope: ExpressionScope;
}

function evaluate(expression: string, what: string, at: Site): JsonValue {
  const result = evaluateExpression(expression, at.variables, at.scope);
  if (!result.ok) throw new AssignmentError(`${what}: ${result.message}`);
  return result.value;
}

function text(expression: string | null, what: string, at: Site): string | null {
  if (expression === null) return null;
  const value = evaluate(expression, what, at);
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new AssignmentError(`${what}: expected a string, got ${JSON.stringify(value)}`);
}

function names(expression: string | null, what: string, at: Site): string[] {
  if (expression === null) return [];
  const source = juelSource(expression);
  if (source !== null) return juelNames(source, what, at);
  const value = evaluate(expression, what, at);
  if (value === null) return [];
  if (typeof value === 'string') return [value];
  if (isNameList(value)) return value;
  throw new AssignmentError(`${what}: expected a list of names, got ${JSON.stringify(value)}`);
}

// Camunda 7 reads `${groups}, management` as a comma-separated list whose items are expressions or
// names: an item giving a list adds its names, one giving text adds the names separated by commas.
function juelNames(source: string, what: string, at: Site): string[] {
  return commaSeparatedItems(source).flatMap((item) => {
    if (!isJuelText(item)) return [item];
    const value = evaluate(markJuel(item), what, at);
    if (value === null) return [];
    if (typeof value === 'string') return commaSeparatedItems(value);
    if (isNameList(value)) return value;
    throw new AssignmentError(`${what}: expected names, got ${JSON.stringify(value)}`);
  });
}

function isNameList(value: JsonValue): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The items of a comma-separated list, trimmed; commas inside `${…}` and `#{…}` do not separate. */
function commaSeparatedItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== null) {
      if (char === '\\') i++;
      else if (char === quote) quote = null;
    } else if (depth > 0 && (char === "'" || char === '"')) quote = char;
    else if ((char === '$' || char === '#') && text[i + 1] === '{') {
      depth++;
      i++;
    } else if (char === '{' && depth > 0) depth++;
    else if (char === '}' && depth > 0) depth--;
    else if (char === ',' && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  items.push(text.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
