/**
 * The BPMN token engine: pure functions from (model, state, event) to (new state, effects). No
 * database, no clock, no I/O: time and ids come from the {@link EngineContext}.
 */
export { startInstance, startInstancePausing } from './start-instance.js';
export { applyEvent, applyEventPausing } from './apply-event.js';
export { DEFAULT_RETRIES, JAVASCRIPT_SCRIPT } from './activities.js';
export { EXECUTION_LISTENER_SCRIPT } from './execution-listeners.js';
export { TASK_LISTENER_SCRIPT } from './task-listener-runs.js';
export { checkInstructions, generateInstructions, migrateInstance } from './migrate.js';
export type {
  MigrationInput,
  MigrationInstruction,
  MigrationProblem,
  MigrationResult,
  MovedIncident,
  MovedWait,
} from './migrate.js';
export type {
  Effect,
  EngineContext,
  EngineError,
  EngineEvent,
  EngineResult,
  HistoryEntry,
  InstanceFacts,
  ModificationInstruction,
} from './protocol.js';
export { evaluateExpression } from './expression.js';
export type {
  CallActivityWait,
  ContinuationWait,
  Incident,
  InstanceState,
  InstanceStatus,
  JsonValue,
  ScriptWait,
  Variables,
  Wait,
} from './types.js';
