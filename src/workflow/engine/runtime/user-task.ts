import type { UserTaskModel } from '../model/index.js';
import { evaluateFeel } from './feel.js';
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
 * FEEL text. A single name where a list is expected is taken as a one-item list; any other shape is
 * an error, so a typo in the model shows up as an incident rather than an unassigned task.
 */
export function evaluateAssignment(task: UserTaskModel, variables: Variables): Assignment {
  try {
    return {
      ok: true,
      value: {
        assignee: text(task.assignee, 'assignee', variables),
        candidateGroups: names(task.candidateGroups, 'candidate groups', variables),
        candidateUsers: names(task.candidateUsers, 'candidate users', variables),
        dueDate: text(task.dueDate, 'due date', variables),
        followUpDate: text(task.followUpDate, 'follow-up date', variables),
      },
    };
  } catch (error) {
    if (error instanceof AssignmentError) return { ok: false, message: error.message };
    throw error;
  }
}

class AssignmentError extends Error {}

function evaluate(expression: string, what: string, variables: Variables): JsonValue {
  const result = evaluateFeel(expression, variables);
  if (!result.ok) throw new AssignmentError(`${what}: ${result.message}`);
  return result.value;
}

function text(expression: string | null, what: string, variables: Variables): string | null {
  if (expression === null) return null;
  const value = evaluate(expression, what, variables);
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new AssignmentError(`${what}: expected a string, got ${JSON.stringify(value)}`);
}

function names(expression: string | null, what: string, variables: Variables): string[] {
  if (expression === null) return [];
  const value = evaluate(expression, what, variables);
  if (value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item): item is string => typeof item === 'string')) return value;
  throw new AssignmentError(`${what}: expected a list of names, got ${JSON.stringify(value)}`);
}
