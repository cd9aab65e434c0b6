import type { EngineError } from '../runtime/index.js';

/**
 * Why an engine call was refused: the instance or the wait is not there (`notFound`), the event's
 * input is invalid (`invalid`), the instance cannot take the event in its state (`conflict`), or its
 * write lost the race for the instance too often (`contention`).
 */
export type EngineCallErrorKind = 'notFound' | 'invalid' | 'conflict' | 'contention';

// The status an API client sees for each kind; src/workflow/errors.ts makes the response (code, body).
const statusOfKind = { notFound: 404, invalid: 400, conflict: 409, contention: 409 } as const;

/**
 * An engine call refused; nothing was written. The engine's own errors: no HTTP error factory makes
 * them. `statusCode` says what an API client sees (404, 400, 409), so callers that classify refusals
 * by status (a timer that finds its wait gone) read one number for engine and service errors alike;
 * `src/workflow/errors.ts` turns them into the service's error response.
 */
export class EngineCallError extends Error {
  override readonly name: string = 'EngineCallError';
  readonly statusCode: (typeof statusOfKind)[EngineCallErrorKind];

  constructor(
    readonly kind: EngineCallErrorKind,
    message: string,
    /** Every problem found, when the engine lists several (an invalid modification). */
    readonly problems?: string[],
  ) {
    super(message);
    this.statusCode = statusOfKind[kind];
  }
}

/**
 * An event whose write lost the race for its instance `maxAttempts` times in a row: a 409 to an API
 * client, but not "nothing left to do" for a timer, which must try again.
 */
export class InstanceContentionError extends EngineCallError {
  override readonly name = 'InstanceContentionError';

  constructor() {
    super('contention', 'The process instance is changing too often; try again');
  }
}

/**
 * An event refused because the instance is suspended: a 409 to an API client, but, unlike other
 * conflicts, not "nothing left to do" for a timer, which must fire after the instance is resumed.
 */
export class InstanceSuspendedError extends EngineCallError {
  override readonly name = 'InstanceSuspendedError';

  constructor() {
    super('conflict', 'The process instance is suspended');
  }
}

/** A start by key found that its definition is no longer the latest enabled version: nothing was written. */
export class StaleDefinitionError extends Error {
  constructor(readonly definitionId: string) {
    super(`definition ${definitionId} is no longer the latest enabled version of its key`);
  }
}

/** The engine call error of a refusal of the pure engine. */
export function refusalError(error: EngineError): EngineCallError {
  switch (error.code) {
    case 'waitNotFound':
    case 'incidentNotFound':
      return new EngineCallError('notFound', error.message);
    case 'invalidVariables':
    case 'noStartEvent':
      return new EngineCallError('invalid', error.message);
    case 'invalidModification':
      return new EngineCallError('invalid', 'The modification does not fit the instance', error.problems);
    case 'instanceEnded':
    case 'notApplicable':
      return new EngineCallError('conflict', error.message);
  }
}

/**
 * True for the refusals an API client sees as 404 or 409: the instance or its wait is gone, the event
 * no longer applies, or (unless `contention` is false) the write lost the race too often.
 */
export function isGoneOrConflict(error: unknown, options: { contention?: boolean } = {}): boolean {
  return (
    error instanceof EngineCallError &&
    !(error instanceof InstanceSuspendedError) &&
    error.kind !== 'invalid' &&
    (error.kind !== 'contention' || (options.contention ?? true))
  );
}
