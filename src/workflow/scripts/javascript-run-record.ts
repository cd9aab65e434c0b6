import type { Clock } from '../../platform/clock.js';
import type { HistoryEntry, ScriptWait } from '../engine/runtime/index.js';
import type { StepOutcome } from './types.js';

/** What a JavaScript run in the sandbox was for: the history entry's element type, name and index. */
export interface JavaScriptRunSubject {
  elementType: string;
  name: string;
  index: number;
}

/** The history entry of one JavaScript run (a script task or a task listener). */
export function javascriptRunHistory(
  wait: ScriptWait,
  subject: JavaScriptRunSubject,
  outcome: StepOutcome,
  clock: Clock,
): HistoryEntry {
  return {
    kind: 'scriptStep',
    elementId: wait.elementId,
    elementType: subject.elementType,
    tokenId: wait.tokenId,
    at: clock.now().toISOString(),
    data: {
      name: subject.name,
      index: subject.index,
      type: 'javascript',
      duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
      status: outcome.status,
      ...(outcome.status === 'error' ? { error: outcome.error.message } : {}),
    },
  };
}

/** The incident message of a failed run: what failed, where in the script, and why. */
export function javascriptFailure(
  what: string,
  error: { message: string; line: number | null; column: number | null },
): string {
  const at =
    error.line === null
      ? ''
      : ` at line ${error.line}${error.column === null ? '' : `, column ${error.column}`}`;
  return `${what} failed${at}: ${error.message}`;
}
