import type { ModelProblem, ProcessModel } from '../engine/model/index.js';
import { evaluateExpression } from '../engine/runtime/index.js';
import { timerProblem, type TimerSpec } from '../engine/schedule/schedule.js';

/** A timer start event of a process with its schedule as text (FEEL already evaluated). */
export interface TimerStart {
  elementId: string;
  schedule: TimerSpec;
}

/**
 * The timer start events of a process's top level with their schedules, or the problems that keep
 * them from being armed. An expression timer (FEEL with Zeebe's `=` prefix, or JUEL) is evaluated once, at deploy or
 * enable time, with no variables (there is no instance yet): `= now() + duration("PT1H")` works,
 * a reference to a variable is null and is reported. Timer starts of event sub-processes are not
 * here: they belong to a running instance.
 */
export function timerStartsOf(
  model: ProcessModel,
  now: Date,
): { ok: true; starts: TimerStart[] } | { ok: false; problems: ModelProblem[] } {
  const starts: TimerStart[] = [];
  const problems: ModelProblem[] = [];
  for (const elementId of model.startEventIds.timer) {
    const element = model.elements[elementId];
    if (element?.type !== 'startEvent' || element.eventDefinition.kind !== 'timer') continue;
    const { timer } = element.eventDefinition;
    let value = timer.value;
    if (timer.isExpression) {
      const result = evaluateExpression(timer.value, {}, { now });
      if (!result.ok) {
        problems.push({ elementId, message: `timer start event '${elementId}': ${result.message}` });
        continue;
      }
      value = typeof result.value === 'string' ? result.value : JSON.stringify(result.value);
    }
    const schedule: TimerSpec = { kind: timer.kind, value };
    const problem = timerProblem(schedule);
    if (problem !== null) {
      problems.push({ elementId, message: `timer start event '${elementId}': ${problem}` });
      continue;
    }
    starts.push({ elementId, schedule });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, starts };
}
