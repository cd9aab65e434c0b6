/**
 * What goes into the engine (events, context) and what comes out (effects, results).
 */
import type {
  Incident,
  InstanceState,
  InstanceStatus,
  JsonValue,
  Variables,
  Wait,
  WaitKind,
} from './types.js';

/** Time and ids are injected, so a run is deterministic. */
export interface EngineContext {
  now: Date;
  /** A new unique id, for tokens, scopes, waits and incidents. */
  newId(): string;
  /** Elements one token may enter in one call before it stops with an incident (a loop without a wait). */
  maxStepsPerCall: number;
  /** Instances one multi-instance body may have (cardinality or collection size); more is an incident. */
  maxMultiInstance: number;
  /** The instance the call runs for, as expressions read it (JUEL's `execution`); absent in unit tests. */
  instance?: InstanceFacts;
}

/** What an expression may read of its instance besides variables. */
export interface InstanceFacts {
  id: string;
  businessKey: string | null;
  definitionId: string;
}

/** Input of {@link startInstance}. */
export interface StartInput {
  variables: Variables;
  /** A none start event of the process; defaults to the only one. */
  startEventId?: string;
  /** The instance is started by a call activity of another instance (see `InstanceState.calledByParent`). */
  calledByParent?: boolean;
  /**
   * Who starts the instance: the value of the start event's `camunda:initiator` variable (a user's
   * email; null or absent when no user starts it: a message, a timer, a signal, a call activity).
   */
  initiator?: string | null;
}

/** An event fed back by the driver. */
export type EngineEvent =
  /** The work of a wait is done (a worker, a person, a script, a decision, a message, a timer, a signal). */
  | { type: 'complete'; waitId: string; variables?: Variables }
  /** A worker or script reports a BPMN error: caught by the nearest matching error boundary, else an incident. */
  | { type: 'bpmnError'; waitId: string; errorCode: string; message?: string; variables?: Variables }
  /**
   * The instance a call activity wait started threw an escalation nothing in it caught: thrown again
   * at the call activity, where an escalation boundary event (or an enclosing catch) may catch it.
   */
  | { type: 'escalation'; waitId: string; escalationCode: string }
  /** A job ran out of retries: an incident on the wait's element. */
  | { type: 'fail'; waitId: string; message: string }
  /** Resume the token of an incident. */
  | { type: 'retryIncident'; incidentId: string }
  /** Withdraw everything; the instance ends as cancelled. */
  | { type: 'cancel' }
  /**
   * A JavaScript task listener ran (the driver's answer to its script wait): the variables it set
   * and, when it called `task.setAssignee`, the assignee it left.
   */
  | { type: 'taskListenerDone'; waitId: string; variables?: Variables; assignee?: string | null }
  /**
   * A person claims (or, with a null assignee, unclaims) an open user task: its `assignment`
   * listeners run and the task's row gets the assignee. A claim (`claim: true`) of a task assigned
   * to someone else is refused.
   */
  | { type: 'assignTask'; waitId: string; assignee: string | null; claim?: boolean }
  /** Set variables on the root scope. */
  | { type: 'setVariables'; variables: Variables }
  /** An operator's modification of the instance's tokens (see `modify.ts`), applied all or nothing. */
  | {
      type: 'modify';
      instructions: ModificationInstruction[];
      /** Set on the root scope before the instructions run. */
      variables?: Variables;
      /** Do not apply the input mappings of the elements the instructions start. */
      skipIoMappings?: boolean;
      /** Who asked for it, recorded in the `modified` history entry. */
      actor?: string;
    };

/**
 * One instruction of a modification. `ancestorScopeId` names the scope instance (an id of
 * `InstanceState.scopes`) a start happens in or below, when the target's sub-process runs more than once.
 */
export type ModificationInstruction =
  /** A new token enters the element, as if it had arrived by a flow. */
  | { type: 'startBeforeActivity'; activityId: string; ancestorScopeId?: string }
  /** A new token leaves the element by its one outgoing flow. */
  | { type: 'startAfterActivity'; activityId: string; ancestorScopeId?: string }
  /** Every token at the element (at any depth) is terminated. */
  | { type: 'cancelActivity'; activityId: string }
  /** One token is terminated. */
  | { type: 'cancelToken'; tokenId: string };

/** Why a wait was closed. */
export type WaitCloseReason = 'completed' | 'failed' | 'errorThrown' | 'interrupted' | 'cancelled';

/** Kinds of history entry. */
export type HistoryKind =
  | 'instanceStarted'
  | 'elementActivated'
  | 'elementCompleted'
  | 'elementTerminated'
  | 'flowTaken'
  | 'gatewayArrived'
  | 'gatewayDecision'
  | 'variablesUpdated'
  | 'errorThrown'
  /** An escalation was thrown: its code, whether it was caught and by which element. */
  | 'escalationThrown'
  /** A compensation throw or cancel end event: `data.activities` lists what it compensates, last completed first. */
  | 'compensationThrown'
  | 'incidentRaised'
  | 'incidentResolved'
  /**
   * A listener failed where its failure cannot stop anything and raises no incident (a `delete`
   * task listener, the process's `end` listener): the event and the message.
   */
  | 'listenerFailed'
  | 'instanceEnded'
  /** An operator's modification: the instructions and the actor. */
  | 'modified'
  /** Written by the instance service: the instance was suspended or resumed (data: actor). */
  | 'instanceSuspended'
  | 'instanceResumed'
  /** Written by the driver: one step of a script pipeline (name, index, type, duration, status). */
  | 'scriptStep'
  /** The instance moved to another version of its process (source and target definition ids). */
  | 'migrated';

/** One history row; `data` depends on the kind (flow id, decision, variable names and values…). */
export interface HistoryEntry {
  kind: HistoryKind;
  /** The element concerned: a flow node, a flow, or the process key for instance-level entries. */
  elementId: string;
  /** The element's type (`serviceTask`, `sequenceFlow`, `process`). */
  elementType: string;
  tokenId: string | null;
  /** ISO time from the context clock. */
  at: string;
  data: Record<string, JsonValue>;
}

/** What the driver persists, in order, in the same transaction as the new state. */
export type Effect =
  | { type: 'waitOpened'; wait: Wait }
  | { type: 'waitClosed'; waitId: string; kind: WaitKind; elementId: string; reason: WaitCloseReason }
  | { type: 'incidentRaised'; incident: Incident }
  | {
      type: 'incidentResolved';
      incidentId: string;
      elementId: string;
      waitId: string | null;
      reason: 'retried' | 'cancelled' | 'terminated';
    }
  | { type: 'history'; entry: HistoryEntry }
  /** An open user task has a new assignee (a claim or unclaim, after its assignment listeners). */
  | { type: 'taskAssigned'; waitId: string; assignee: string | null }
  | {
      type: 'messageThrown';
      elementId: string;
      messageName: string;
      correlationKey: string | null;
      variables: Variables;
    }
  /** An uncaught BPMN error ended a called instance; the driver throws it at the caller's call activity. */
  | { type: 'errorPropagated'; errorCode: string; variables: Variables }
  /**
   * An escalation nothing in this called instance caught; the driver throws it at the caller's call
   * activity. Unlike an error the instance goes on (unless the caller's catch interrupts it).
   */
  | { type: 'escalationPropagated'; escalationCode: string }
  | { type: 'signalThrown'; elementId: string; signalName: string; variables: Variables }
  | { type: 'instanceEnded'; status: Extract<InstanceStatus, 'completed' | 'cancelled' | 'terminated'> };

/** Codes of a refused call; the API maps them to 404 / 409 / 400. */
export type EngineErrorCode =
  | 'waitNotFound'
  | 'incidentNotFound'
  | 'instanceEnded'
  | 'notApplicable'
  | 'invalidVariables'
  | 'noStartEvent'
  /** A modification that does not fit the model or the state; `problems` lists every reason. */
  | 'invalidModification';

/** A refused call: the state is unchanged and there are no effects. */
export interface EngineError {
  code: EngineErrorCode;
  message: string;
  /** Every problem found, when there can be several (a modification). */
  problems?: string[];
}

/** The outcome of a call: the new state and its effects, or a refusal. */
export type EngineResult =
  { ok: true; state: InstanceState; effects: Effect[] } | { ok: false; error: EngineError };
