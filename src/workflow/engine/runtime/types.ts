/**
 * The state of a running process instance, as the token engine reads and writes it.
 *
 * Glossary:
 * - token: a thread of control at one element of the model (Camunda's execution). A token is in one
 *   scope instance and may own one local scope (its sub-process, multi-instance body or mapped inputs).
 * - scope (instance): a set of variables and the tokens that live in it. The root scope is the
 *   process instance; sub-processes, multi-instance bodies and instances, and activities with input
 *   mappings get their own. Variable lookup walks from the innermost scope to the root.
 * - wait: work handed to the outside (an external task, a user task, a timer, a message…). The
 *   engine opens a wait with an id and stops the token there; an event naming that id moves it on.
 * - incident: a token that cannot go on without a person (a FEEL error, a failed job, an unhandled
 *   BPMN error, a loop without a wait state). It stays open until retried or the instance ends.
 * - join: the bookkeeping of tokens that arrived at a converging parallel or inclusive gateway.
 * - multi-instance body: the token that stands for the whole loop of a multi-instance activity; its
 *   inner tokens are the instances (loopCounter counts from 0, as in Camunda 7).
 *
 * All of it is plain JSON: the driver stores it as JSONB and hands it back with the next event.
 */
import type {
  CalledElement,
  ConditionalVariableEvent,
  DecisionReference,
  JobRetryCycle,
  RawXmlElement,
  TimerDefinition,
} from '../model/index.js';

/** A JSON value: what variables hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Variables by name. */
export type Variables = Record<string, JsonValue>;

/** Life-cycle status of an instance; `incident` means running with at least one open incident. */
export type InstanceStatus = 'running' | 'incident' | 'completed' | 'cancelled' | 'terminated';

/** A scope instance: its variables and where it sits. */
export interface ScopeState {
  id: string;
  /** The model element the scope belongs to: the process key, a sub-process or a multi-instance activity. */
  elementId: string;
  /** The enclosing scope; null for the root. */
  parentId: string | null;
  /** The token that owns this scope; null for the root. */
  ownerTokenId: string | null;
  variables: Variables;
}

/** Multi-instance bookkeeping, held by the body token. */
export interface MultiInstanceState {
  /** The items of the input collection, or null when a loop cardinality drives the loop. */
  items: JsonValue[] | null;
  nrOfInstances: number;
  /** Instances started so far (the next loopCounter of a sequential loop). */
  started: number;
  nrOfCompletedInstances: number;
  /** Results by loopCounter, when the activity has an output collection. */
  outputs: JsonValue[] | null;
}

/** A token: where it is and what it waits for. */
export interface TokenState {
  id: string;
  elementId: string;
  /** The scope instance the token lives in. */
  scopeId: string;
  /** The scope this token owns (sub-process, multi-instance body or instance, mapped inputs), if any. */
  localScopeId: string | null;
  /** The flow the token arrived by; null at a start event or boundary event. */
  arrivedVia: string | null;
  /**
   * - `active`: being moved by the engine (never seen between calls);
   * - `waiting`: at an activity or event with open waits, or at a sub-process with live children;
   * - `joining`: arrived at a converging gateway that has not fired yet;
   * - `failed`: stopped by an open incident.
   */
  phase: 'active' | 'waiting' | 'joining' | 'failed';
  /** Set on the token of a multi-instance body; the instances are the tokens of its local scope. */
  multiInstance: MultiInstanceState | null;
  /** Set on an inner token of a multi-instance activity: its loopCounter. */
  loopCounter: number | null;
  /** Set on a compensation throw (or cancel end) token while it waits for its handlers. */
  compensating?: CompensationRun;
  /** Set on the token of a compensation handler: the id of the throw token it runs for. */
  compensationOf?: string;
  /** Set on the token a complex gateway's reset keeps until it has split in the reset phase. */
  complexReset?: true;
}

/**
 * A compensable activity that completed: what compensating it needs once its token is gone.
 * Recorded for an activity with a compensation handler, and for a sub-process, multi-instance body
 * or instance inside which such subscriptions were recorded (compensating it compensates those).
 */
export interface CompensationSubscription {
  activityId: string;
  /** The scope instance the activity ran in; a throw in that scope compensates it. */
  scopeId: string;
  /** The activity's own scope (sub-process, body, instance), which inner subscriptions name; null when none. */
  localScopeId: string | null;
  /** Completion order across the instance: compensation runs from the highest down. */
  order: number;
  /** The local variables of `localScopeId` when the activity completed (the scope is recreated from them). */
  variables: Variables;
  /** The instance's loopCounter for an instance of a multi-instance activity, else null. */
  loopCounter: number | null;
}

/** The compensation a throw token waits for: handlers still to run, one at a time. */
export interface CompensationRun {
  /** Subscriptions still to compensate, next first. */
  pending: CompensationSubscription[];
  /** Every subscription this run took from the instance (the scopes it recreates are found in them). */
  taken: CompensationSubscription[];
  /** Scopes recreated from snapshots for handlers of ended scopes; dropped when the run ends. */
  recreatedScopeIds: string[];
  /** What follows the last handler: the throw completes, or (a cancel end event) the transaction is cancelled. */
  then: 'complete' | 'cancel';
}

/** Compensable activities that completed, kept while their compensation can still happen. */
export interface CompensationState {
  /** The order the next subscription gets. */
  next: number;
  subscriptions: CompensationSubscription[];
}

/** What completing a wait does. */
export type WaitRole =
  /** The wait is the work of the token's own activity or catch event. */
  | { kind: 'activity' }
  /** A boundary event of the token's activity. */
  | { kind: 'boundary'; boundaryEventId: string; interrupting: boolean }
  /** One branch of the event-based gateway the token waits at. */
  | { kind: 'eventGateway'; flowId: string; targetElementId: string }
  /**
   * The start event of an event sub-process of a scope (`tokenId` is the scope's owner token, or the
   * root scope's id at the process level); it stays open while the scope runs.
   */
  | { kind: 'eventSubProcess'; scopeId: string; interrupting: boolean };

/** Fields every wait has. */
export interface WaitBase {
  waitId: string;
  /** The element whose behaviour the wait is: the task, catch event, boundary event or gateway target. */
  elementId: string;
  tokenId: string;
  role: WaitRole;
  /** ISO time the wait was opened. */
  openedAt: string;
}

/** A job for an external worker. */
export interface ExternalTaskWait extends WaitBase {
  kind: 'externalTask';
  topic: string;
  retries: number;
  headers: Record<string, string>;
  variables: Variables;
}

/** A task for a person; assignment evaluated from FEEL at activation. */
export interface UserTaskWait extends WaitBase {
  kind: 'userTask';
  name: string | null;
  assignee: string | null;
  candidateGroups: string[];
  candidateUsers: string[];
  dueDate: string | null;
  followUpDate: string | null;
  formKey: string | null;
  variables: Variables;
}

/**
 * Work done by a weft extension (a script pipeline, a connector) or a script task's JavaScript (an
 * `extension` named `javascript` holding the script as text): the driver runs it and answers.
 */
export interface ScriptWait extends WaitBase {
  kind: 'script';
  extension: RawXmlElement;
  variables: Variables;
  /** Set on the wait of a JavaScript task listener: the listeners after it and what follows them. */
  taskListener?: PendingTaskListeners;
  /** Set on the wait of a JavaScript execution listener: the listeners after it and what follows them. */
  executionListener?: PendingExecutionListeners;
  /**
   * Set on the wait of a JavaScript `delete` task listener: the task is already withdrawn (its
   * token may be gone, its instance ended), so the wait holds what the listeners see.
   */
  deleteListener?: PendingDeleteListeners;
}

/** Whose execution listeners run: the process's, a flow node's or a sequence flow's. */
export type ListenerHostRef =
  { kind: 'process' } | { kind: 'element'; id: string } | { kind: 'flow'; id: string };

/**
 * Execution listeners of one event still to run (execution-listeners.ts), and what follows the
 * last: the step of the engine they interrupted, resumed where it stopped.
 */
export interface PendingExecutionListeners {
  on: ListenerHostRef;
  event: 'start' | 'end' | 'take';
  /** Indexes into the host's listeners, next first. */
  queue: number[];
  then: AfterExecutionListeners;
}

/** What follows a host's execution listeners of one event. */
export type AfterExecutionListeners =
  /** Process `start`: the start token enters its start event. */
  | { kind: 'enterStart' }
  /** Flow node `start`: its behaviour runs (its input mappings are applied already). */
  | { kind: 'behaviour' }
  /** Flow node `end`: it completes and leaves. */
  | { kind: 'complete' }
  /** Gateway `end`: it takes the flows it chose. */
  | { kind: 'takeFlows'; flowIds: string[] }
  /** `take`: the token enters the flow's target. */
  | { kind: 'enterTarget' }
  /** A terminate end event's `end`: it terminates its scope. */
  | { kind: 'terminate' }
  /** The `end` of an event-based gateway whose branch fired: the branch's flow is taken. */
  | { kind: 'takeBranch'; flowId: string; variables: Variables | null }
  /** The `take` of a fired branch's flow: its catch event completes with the event's variables. */
  | { kind: 'completeBranch'; variables: Variables | null }
  /** Process `end`: the instance ends as completed (a failure is recorded, never an incident). */
  | { kind: 'endInstance' };

/**
 * `delete` listeners of a withdrawn user task still to run (task-listener-runs.ts). They see the
 * variables as they were when the task was withdrawn (and what the listeners before set); what they
 * set goes to `scopeId` (the task's scope) while it exists, else to the instance.
 */
export interface PendingDeleteListeners {
  /** Indexes into the user task's listeners, next first. */
  queue: number[];
  task: UserTaskWait;
  scopeId: string;
  variables: Variables;
}

/**
 * Task listeners of a user task still to run (task-listeners.ts), and what follows the last: the
 * task's wait opens (create), its new assignee is written (a claim), or it completes.
 */
export interface PendingTaskListeners {
  /** Indexes into the element's listeners, next first. */
  queue: number[];
  /** The task as the listeners see and change it (its wait, or the wait about to open). */
  task: UserTaskWait;
  then: { kind: 'open' } | { kind: 'assigned' } | { kind: 'complete'; variables: Variables | null };
}

/** A business rule task's decision: the driver evaluates the DMN and answers. */
export interface DecisionWait extends WaitBase {
  kind: 'decision';
  decision: DecisionReference;
  variables: Variables;
}

/** A call activity: the driver starts the child instance and answers when it ends. */
export interface CallActivityWait extends WaitBase {
  kind: 'callActivity';
  calledElement: CalledElement;
  variables: Variables;
  /**
   * The called instance's business key, evaluated from `camunda:in businessKey` (null: none).
   * Absent when the model gives none: the called instance gets the caller's business key.
   */
  businessKey?: string | null;
}

/** A send task without a job: the driver publishes the message and answers. */
export interface SendWait extends WaitBase {
  kind: 'send';
  messageName: string;
  /** The evaluated correlation key of the message, or null when the model gives none. */
  correlationKey: string | null;
  variables: Variables;
}

/** A message catch: intermediate event, receive task or boundary event. */
export interface MessageWait extends WaitBase {
  kind: 'message';
  messageName: string;
  /** The evaluated correlation key, or null when the model gives none. */
  correlationKey: string | null;
}

/** A timer; the driver computes the due date from the definition (and `value` for an expression). */
export interface TimerWait extends WaitBase {
  kind: 'timer';
  timer: TimerDefinition;
  /** The evaluated value when the definition is a FEEL expression, else the literal. */
  value: JsonValue;
}

/** A signal catch. */
export interface SignalWait extends WaitBase {
  kind: 'signal';
  signalName: string;
}

/**
 * A conditional catch, evaluated by the engine itself whenever a variable it sees changes: no
 * outside party answers it, so the driver keeps no row for it (it lives in the state only).
 */
export interface ConditionalWait extends WaitBase {
  kind: 'conditional';
  /** FEEL text; the wait fires when it evaluates to `true`. */
  condition: string;
  /** Only changes of this variable trigger an evaluation; null for any. */
  variableName: string | null;
  /** Kinds of change that trigger an evaluation; empty for any. */
  variableEvents: ConditionalVariableEvent[];
}

/**
 * An asynchronous continuation (Camunda 7's `asyncBefore`/`asyncAfter`): the call ends here, and a
 * job the driver writes goes on later, in a transaction of its own. `then` is what the job does.
 */
export interface ContinuationWait extends WaitBase {
  kind: 'continuation';
  then:
    /** Run the element (asyncBefore): its input mappings, start listeners and behaviour. */
    | { kind: 'enter' }
    /** Go on after the completed element (asyncAfter): leave it, or report an instance to its body. */
    | { kind: 'leave' }
    /** Take the flows a gateway chose (asyncAfter on a gateway). */
    | { kind: 'take'; flowIds: string[] };
  retry: JobRetryCycle;
}

/** An open wait. */
export type Wait =
  | ExternalTaskWait
  | UserTaskWait
  | ScriptWait
  | DecisionWait
  | CallActivityWait
  | SendWait
  | MessageWait
  | TimerWait
  | SignalWait
  | ConditionalWait
  | ContinuationWait;

/** Kinds of wait. */
export type WaitKind = Wait['kind'];

/** How retrying an incident resumes its token. */
export type IncidentRetry =
  /** Run the element again from its activation (FEEL errors on entry, loops, unhandled error ends). */
  | { action: 'activate' }
  /** Open the element's wait again (a failed job, an unhandled BPMN error from a worker). */
  | { action: 'openWait' }
  /** Finish the element again with the variables it completed with (output mapping errors). */
  | { action: 'complete'; variables: Variables | null }
  /** Choose the outgoing flows of a gateway or completed activity again (condition errors, no flow to take). */
  | { action: 'split' }
  /** Check again whether a multi-instance loop is done (completion condition errors). */
  | { action: 'continueMultiInstance' }
  /** Evaluate a conditional event's condition again (its wait stayed open). */
  | { action: 'evaluateCondition'; waitId: string }
  /** Run a user task's task listeners again from the one that failed. */
  | { action: 'taskListeners'; pending: PendingTaskListeners }
  /** Open the continuation job again (a job that failed for a reason outside the model). */
  | { action: 'continuation'; then: ContinuationWait['then'] }
  /** Run execution listeners again from the one that failed, then what follows them. */
  | { action: 'executionListeners'; pending: PendingExecutionListeners };

/** Why an incident was raised. */
export type IncidentKind =
  | 'expression'
  | 'noPath'
  | 'jobFailed'
  | 'unhandledError'
  | 'stepLimit'
  /** A multi-instance body over the instance limit or the copy budget. */
  | 'multiInstanceLimit';

/** An open incident. */
export interface Incident {
  incidentId: string;
  kind: IncidentKind;
  elementId: string;
  tokenId: string;
  /** The wait that failed, for job failures and unhandled BPMN errors. */
  waitId: string | null;
  message: string;
  createdAt: string;
  retry: IncidentRetry;
}

/** Tokens that arrived at a converging gateway, keyed `scopeId/gatewayId` in {@link InstanceState.joins}. */
export interface JoinState {
  scopeId: string;
  gatewayId: string;
  /** Token ids by the flow they arrived by, in arrival order. */
  arrived: Record<string, string[]>;
  /**
   * A complex gateway that fired and is "waiting for reset" (BPMN 13.3.5): the incoming flows it
   * consumed no token from in that firing, whose tokens of the same round it still expects.
   * Absent while the gateway waits for start.
   */
  resetPending?: string[];
}

/** The whole state of a process instance. */
export interface InstanceState {
  /** Format version of this state, for stored instances. */
  format: 1;
  processKey: string;
  status: InstanceStatus;
  rootScopeId: string;
  scopes: Record<string, ScopeState>;
  tokens: Record<string, TokenState>;
  waits: Record<string, Wait>;
  joins: Record<string, JoinState>;
  incidents: Record<string, Incident>;
  /**
   * Set on an instance started by a call activity: a BPMN error nothing in it catches ends it and
   * goes to the caller (an `errorPropagated` effect) instead of raising an incident here.
   */
  calledByParent?: true;
  /** Completed compensable activities; absent until the first one completes (and in older states). */
  compensation?: CompensationState;
}
