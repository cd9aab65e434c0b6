/** The built-in functions Camunda 7 provides to expressions, over the host's context. */
import type { JuelContext } from './context.js';
import { JuelDateTime } from './date-time.js';
import { JuelError } from './errors.js';
import type { JuelValue } from './values.js';

function now(context: JuelContext): Date {
  const date = context.clock();
  if (!(date instanceof Date) || Number.isNaN(date.getTime()))
    throw new JuelError('The clock gave no valid date');
  return new Date(date.getTime());
}

/** The functions by name; each takes no arguments. */
export const JUEL_FUNCTIONS: Readonly<Record<string, (context: JuelContext) => JuelValue>> = Object.freeze({
  /** The current time as a DateTime, for `dateTime().plusWeeks(1).toDate()`. */
  dateTime: (context: JuelContext) => new JuelDateTime(now(context).getTime()),
  /** The current time as a Date. */
  now,
  /** The authenticated user's id, or null. */
  currentUser: (context: JuelContext) => context.currentUser ?? null,
  /** The authenticated user's group ids, or null when no user is authenticated. */
  currentUserGroups: (context: JuelContext) =>
    context.currentUserGroups == null ? null : [...context.currentUserGroups],
});

/** True for a known function name. */
export function isJuelFunction(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(JUEL_FUNCTIONS, name);
}
