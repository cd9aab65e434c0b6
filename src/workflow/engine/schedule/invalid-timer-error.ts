/** The three ways a BPMN timer event gives its time. */
export type TimerKind = 'date' | 'duration' | 'cycle';

/** A timer definition as text: the model's literal, or the text its FEEL expression evaluated to. */
export interface TimerSpec {
  kind: TimerKind;
  value: string;
}

const fieldNames: Record<TimerKind, string> = {
  date: 'timeDate',
  duration: 'timeDuration',
  cycle: 'timeCycle',
};

/**
 * A timer definition that cannot be scheduled. `message` names the BPMN field, quotes the text and
 * says what is wrong, so deploy validation can show it as it is; `reason` is the last part alone.
 */
export class InvalidTimerError extends Error {
  override readonly name = 'InvalidTimerError';

  constructor(
    readonly kind: TimerKind,
    readonly value: string,
    readonly reason: string,
  ) {
    super(`invalid ${fieldNames[kind]} '${value}': ${reason}`);
  }
}

/** Thrown by the parsers below the schedule; `parseTimerSchedule` turns it into an InvalidTimerError. */
export class TimerSyntaxError extends Error {
  override readonly name = 'TimerSyntaxError';
}
