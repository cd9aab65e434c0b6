/**
 * The executable process model: what the BPMN compiler produces and the token engine reads.
 *
 * Glossary:
 * - process key: the BPMN process element's id; versions of a definition share it.
 * - element: a flow node (event, gateway, activity) addressed by its BPMN id.
 * - flow: a sequence flow between two elements of the same scope.
 * - scope: the process or a sub-process; it owns child elements, start events and event sub-processes.
 * - FEEL text: an expression in the FEEL language, stored as source text (a Zeebe leading `=` removed).
 *   Static values written in the XML (an assignee "demo", a constant input) are turned into FEEL
 *   literals, so the engine never guesses. A Camunda 7 JUEL expression (`${…}`) is stored in the
 *   same places as its source behind a `juel:` mark (juel-text.ts), which no FEEL text can start
 *   with; `runtime/expression.ts` evaluates either.
 *
 * Everything here is plain JSON-serialisable data: models are cached and may be stored.
 */

/** Kinds of element the engine runs, the `type` discriminant of {@link ElementModel}. */
export type ElementType = ElementModel['type'];

/** The element model of one type: `ElementOfType<'userTask'>` is {@link UserTaskModel}. */
export type ElementOfType<T extends ElementType> = Extract<ElementModel, { type: T }>;

/**
 * A variable mapping: evaluate `expression` and store the result under `target`. The expression is
 * model expression text (FEEL, or marked JUEL), or a Camunda 7 `camunda:list` / `camunda:map`
 * whose items are evaluated one by one.
 */
export interface VariableMapping {
  target: string;
  expression: MappingValue;
}

/**
 * What a mapping evaluates: expression text, or Camunda 7's `camunda:list` (a JSON array of the
 * items' values) or `camunda:map` (a JSON object; a later entry of the same key wins). Entry keys
 * are constant text, as Camunda's Modeler writes them.
 */
export type MappingValue =
  string | { list: MappingValue[] } | { map: { key: string; value: MappingValue }[] };

/** An extension element of the weft namespace, kept as data for later extensions to read. */
export interface RawXmlElement {
  /** Local name, without prefix (`pipeline` for `<weft:pipeline>`). */
  name: string;
  attributes: Record<string, string>;
  children: RawXmlElement[];
  /** Text content, or null when the element has none. */
  text: string | null;
}

/** A job handed to an external worker (Camunda `camunda:topic`, Zeebe `zeebe:taskDefinition`). */
export interface JobDefinition {
  topic: string;
  /** Retry count as written (Zeebe allows an expression, so it stays text); null when not given. */
  retries: string | null;
  /** Static task headers (Zeebe `zeebe:taskHeaders`). */
  headers: Record<string, string>;
}

/** Timer definition of a timer event; `value` is FEEL text when `isExpression`, else an ISO 8601 literal. */
export interface TimerDefinition {
  kind: 'date' | 'duration' | 'cycle';
  value: string;
  isExpression: boolean;
}

/** The trigger or result of an event. Unsupported kinds are rejected at compile time. */
export type EventDefinition =
  | { kind: 'none' }
  | { kind: 'timer'; timer: TimerDefinition }
  | {
      kind: 'message';
      /** From the referenced `bpmn:message`'s name; null only for a throw implemented by a job. */
      messageName: string | null;
      /** Raw correlation key text as written (Zeebe `zeebe:subscription correlationKey`). */
      correlationKey: string | null;
      /** A throwing message event may be implemented by a worker, as in Zeebe. */
      job: JobDefinition | null;
    }
  | { kind: 'signal'; signalName: string }
  | {
      kind: 'error';
      /** From the referenced `bpmn:error`'s errorCode; null on a catch means "catch all". */
      errorCode: string | null;
      errorName: string | null;
      /** A throw's message: the referenced `bpmn:error`'s `camunda:errorMessage`. */
      errorMessage?: string | null;
      /** On a catch, Camunda's `camunda:errorCodeVariable`: the variable that receives the caught code. */
      codeVariable?: string | null;
      /** On a catch, `camunda:errorMessageVariable`: the variable that receives the caught message. */
      messageVariable?: string | null;
    }
  | {
      kind: 'escalation';
      /** From the referenced `bpmn:escalation`'s escalationCode; null on a catch means "catch all". */
      escalationCode: string | null;
      escalationName: string | null;
    }
  | { kind: 'terminate' }
  | {
      kind: 'conditional';
      /** FEEL text; the event fires when it evaluates to `true`. */
      condition: string;
      /** Camunda `camunda:variableName`: only changes of this variable trigger an evaluation. */
      variableName: string | null;
      /** Camunda `camunda:variableEvents`: the kinds of change that trigger one; empty means all. */
      variableEvents: ConditionalVariableEvent[];
    }
  | {
      kind: 'compensate';
      /** The activity to compensate; null compensates every completed activity of the scope. */
      activityRef: string | null;
      /** As written; the engine always waits for the handlers (Camunda 7 does the same). */
      waitForCompletion: boolean;
    }
  /** Cancel end event (inside a transaction) and cancel boundary event (on a transaction). */
  | { kind: 'cancel' }
  | {
      kind: 'link';
      linkName: string;
      /** On a throw: the id of the catch event with the same name in the same scope (set at build). */
      targetId: string | null;
    };

/** A kind of variable change a conditional event may listen to (weft never deletes variables). */
export type ConditionalVariableEvent = 'create' | 'update' | 'delete';

/** Multi-instance loop characteristics (Camunda and Zeebe variants folded into one shape). */
export interface MultiInstanceModel {
  isSequential: boolean;
  /** FEEL text giving the list to iterate over, or null when `loopCardinality` is used. */
  inputCollection: string | null;
  /** Variable name that holds the current item in each instance. */
  inputElement: string | null;
  /** Variable name that collects the results. */
  outputCollection: string | null;
  /** FEEL text evaluated in each instance to give its result. */
  outputElement: string | null;
  /** FEEL text giving the number of instances. */
  loopCardinality: string | null;
  /** FEEL text; when true, remaining instances are cancelled. */
  completionCondition: string | null;
}

/** Fields shared by every element. */
export interface ElementBase {
  id: string;
  name: string | null;
  /** The process key or the id of the sub-process that contains the element. */
  parentId: string;
  /** Sequence flow ids into the element. */
  incoming: string[];
  /** Sequence flow ids out of the element. */
  outgoing: string[];
  /** Input mappings (FEEL), applied when the element is entered. */
  inputs: VariableMapping[];
  /** Output mappings (FEEL), applied when the element completes. */
  outputs: VariableMapping[];
  /** Extension elements of the weft namespace, kept raw. */
  extensions: RawXmlElement[];
  /** Camunda 7 execution listeners (and a user task's task listeners), in document order; absent in older models. */
  listeners?: ListenerModel[];
  /** Camunda 7 asynchronous continuations (transaction boundaries); absent when the element has none. */
  async?: AsyncContinuations;
  /** `camunda:failedJobRetryTimeCycle` of the element's continuation jobs; absent for Camunda's default. */
  jobRetry?: JobRetryCycle;
}

/**
 * Where a flow node's execution is cut by a transaction boundary (Camunda 7's asynchronous
 * continuations): the engine commits, and a job goes on from there later.
 */
export interface AsyncContinuations {
  /** Before the element runs (`camunda:asyncBefore`): before its input mappings and start listeners. */
  before: boolean;
  /** After it completed (`camunda:asyncAfter`): after its end listeners, before its outgoing flows. */
  after: boolean;
  /** Before each instance of a multi-instance activity (on its loop characteristics). */
  instanceBefore: boolean;
  /** After each instance of a multi-instance activity, before it reports to the body. */
  instanceAfter: boolean;
}

/** How a continuation job that fails is retried: `retries` more attempts, each after its interval. */
export interface JobRetryCycle {
  retries: number;
  /** The wait before retry n is `intervalsMs[n - 1]`, the last one repeating. */
  intervalsMs: number[];
}

/**
 * A Camunda 7 execution or task listener weft runs: a JUEL expression (compiled, marked text) or a
 * JavaScript script, fired on `event` (start, end, take; create, assignment, complete, delete).
 */
export interface ListenerModel {
  kind: 'execution' | 'task';
  event: string;
  /** The model text of a JUEL expression (see juel-text.ts), or null for a script. */
  expression: string | null;
  /** JavaScript source, or null for an expression. */
  script: string | null;
}

/** Standard loop characteristics: the activity runs again while `loopCondition` holds. */
export interface StandardLoopModel {
  /** FEEL text evaluated before (`testBefore`) or after each iteration; null loops up to the maximum. */
  loopCondition: string | null;
  testBefore: boolean;
  /** Most iterations; null for no maximum. */
  loopMaximum: number | null;
}

/** Fields shared by activities (tasks, sub-processes, call activities). */
export interface ActivityBase extends ElementBase {
  /** Boundary events attached to this activity. */
  boundaryEventIds: string[];
  multiInstance: MultiInstanceModel | null;
  /** A compensation handler (`isForCompensation`): run only by compensation, never by a token's flow. */
  isForCompensation?: boolean;
  /** The handler associated with this activity's compensation boundary event, if any. */
  compensationHandlerId?: string | null;
  /** Standard loop; absent (models compiled before it existed) or null when the activity does not loop. */
  standardLoop?: StandardLoopModel | null;
}

/** A start event; `isInterrupting` only matters inside an event sub-process. */
export interface StartEventModel extends ElementBase {
  type: 'startEvent';
  eventDefinition: EventDefinition;
  isInterrupting: boolean;
  /**
   * Camunda 7 `camunda:initiator` on a top-level start event: the variable the start sets to the
   * email of the user who started the instance (null when no user did: a message, timer, signal or
   * call). Absent when the model names none.
   */
  initiator?: string;
  /** Camunda 7 `camunda:formKey` of the start form; absent when none. */
  formKey?: string;
  /** Camunda 7 `camunda:formRef` of the start form; absent when none. */
  formRef?: FormReference;
}

/** An end event: none, terminate, error, escalation, message or signal. */
export interface EndEventModel extends ElementBase {
  type: 'endEvent';
  eventDefinition: EventDefinition;
}

/** A catching intermediate event: timer, message, signal or conditional. */
export interface IntermediateCatchEventModel extends ElementBase {
  type: 'intermediateCatchEvent';
  eventDefinition: EventDefinition;
}

/** A throwing intermediate event: none (pass-through), message, signal or escalation. */
export interface IntermediateThrowEventModel extends ElementBase {
  type: 'intermediateThrowEvent';
  eventDefinition: EventDefinition;
}

/** An event attached to an activity's boundary. */
export interface BoundaryEventModel extends ElementBase {
  type: 'boundaryEvent';
  eventDefinition: EventDefinition;
  attachedTo: string;
  cancelActivity: boolean;
}

/** Exclusive (XOR) gateway; `defaultFlowId` is taken when no condition holds. */
export interface ExclusiveGatewayModel extends ElementBase {
  type: 'exclusiveGateway';
  defaultFlowId: string | null;
}

/** Inclusive (OR) gateway. */
export interface InclusiveGatewayModel extends ElementBase {
  type: 'inclusiveGateway';
  defaultFlowId: string | null;
}

/**
 * Complex gateway: splits like an inclusive gateway; as a join it fires when `activationCondition`
 * (FEEL, seeing `activationCount`) holds, then waits for the rest of the round ("waiting for reset").
 */
export interface ComplexGatewayModel extends ElementBase {
  type: 'complexGateway';
  defaultFlowId: string | null;
  activationCondition: string | null;
}

/** Parallel (AND) gateway. */
export interface ParallelGatewayModel extends ElementBase {
  type: 'parallelGateway';
}

/** Event-based gateway: waits for the first of the catch events / receive tasks after it. */
export interface EventBasedGatewayModel extends ElementBase {
  type: 'eventBasedGateway';
}

/** Service task: a job for an external worker, or implemented by a weft extension. */
export interface ServiceTaskModel extends ActivityBase {
  type: 'serviceTask';
  job: JobDefinition | null;
  /** Local name of the weft extension element that implements the task, e.g. an HTTP connector. */
  implementedBy: string | null;
}

/** Send task: publishes a message, or is a job as in Zeebe. */
export interface SendTaskModel extends ActivityBase {
  type: 'sendTask';
  messageName: string | null;
  /** Raw correlation key text of the message, evaluated against the sender's variables. */
  correlationKey: string | null;
  job: JobDefinition | null;
  implementedBy: string | null;
}

/** Receive task: waits for a message. */
export interface ReceiveTaskModel extends ActivityBase {
  type: 'receiveTask';
  messageName: string;
  correlationKey: string | null;
  /** `instantiate="true"`: without incoming flows, the task starts the process when its message arrives. */
  instantiate?: boolean;
  /**
   * Set on an instantiating receive task at the process level (listed in `startEventIds.message`):
   * its message as a message start event's trigger, since it behaves as one (BPMN 13.2.3), so
   * message start lookups find it the same way.
   */
  eventDefinition?: Extract<EventDefinition, { kind: 'message' }>;
}

/** User task: assignment fields are FEEL text (literals turned into FEEL strings / lists). */
export interface UserTaskModel extends ActivityBase {
  type: 'userTask';
  assignee: string | null;
  candidateGroups: string | null;
  candidateUsers: string | null;
  dueDate: string | null;
  followUpDate: string | null;
  formKey: string | null;
  /** Camunda 7 `camunda:formRef`: a Camunda Form deployed alongside; absent when none (and in older models). */
  formRef?: FormReference;
}

/**
 * A Camunda Form a user task or start event references (Camunda 7 `camunda:formRef`): the form's key
 * (the `id` of its JSON) and which version of it: the newest of the org (`latest`), the one deployed
 * with the process definition (`deployment`) or a fixed one (`version`).
 */
export interface FormReference {
  formKey: string;
  binding: 'latest' | 'deployment' | 'version';
  /** The version of binding `version`; null for the other bindings. */
  version: number | null;
}

/** Script task: a FEEL or JavaScript script, a job, or a weft extension pipeline. */
export interface ScriptTaskModel extends ActivityBase {
  type: 'scriptTask';
  /** `format` is lower-cased: `feel` (text checked as FEEL) or `javascript` (any JavaScript name). */
  script: { format: string; text: string } | null;
  resultVariable: string | null;
  job: JobDefinition | null;
  implementedBy: string | null;
}

/** Where a business rule task finds its decision, once its key and version are known. */
export interface DecisionReference {
  decisionId: string;
  binding: 'latest' | 'deployment' | 'version' | 'versionTag';
  /** The version number (binding `version`) or version tag (`versionTag`) as text; null when not given. */
  version: string | null;
  /** Camunda 7 `mapDecisionResult`; null when not given (Zeebe stores the decision's output as is). */
  mapDecisionResult: 'singleEntry' | 'singleResult' | 'collectEntries' | 'resultList' | null;
  resultVariable: string | null;
}

/**
 * A business rule task's decision reference as modelled: its key, and its version under binding
 * `version`, are constant text or an expression evaluated when the task is entered (Camunda 7 JUEL
 * `camunda:decisionRef="${…}"`, Zeebe FEEL `decisionId="=…"`), which gives a {@link DecisionReference}.
 */
export interface DecisionReferenceModel extends Omit<DecisionReference, 'decisionId'> {
  /** The decision key as written, or null when {@link decisionIdExpression} gives it. */
  decisionId: string | null;
  /** Model expression text (FEEL, or marked JUEL) giving the decision key; absent for a constant. */
  decisionIdExpression?: string;
  /** Model expression text giving the version number of binding `version`; `version` is then null. */
  versionExpression?: string;
}

/** Business rule task: evaluates a DMN decision (or is a job, as Camunda allows). */
export interface BusinessRuleTaskModel extends ActivityBase {
  type: 'businessRuleTask';
  decision: DecisionReferenceModel | null;
  job: JobDefinition | null;
}

/** Manual task: pass-through. */
export interface ManualTaskModel extends ActivityBase {
  type: 'manualTask';
}

/** Plain task without a type: pass-through. */
export interface TaskModel extends ActivityBase {
  type: 'task';
}

/** Scope data shared by the process and sub-processes. */
export interface ScopeModel {
  /** Direct children (flow nodes) of the scope. */
  childIds: string[];
  /** Event sub-processes directly inside the scope. */
  eventSubProcessIds: string[];
}

/** Embedded sub-process, or event sub-process when `triggeredByEvent`. */
export interface SubProcessModel extends ActivityBase, ScopeModel {
  type: 'subProcess';
  triggeredByEvent: boolean;
  /** A transaction sub-process (`bpmn:transaction`): a cancel end event inside it cancels it. */
  isTransaction?: boolean;
  /** Start events of this sub-process (one none start, or the trigger of an event sub-process). */
  startEventIds: string[];
}

/** The process a call activity starts, once its key and version are known. */
export interface CalledElement {
  processKey: string;
  binding: 'latest' | 'deployment' | 'version' | 'versionTag';
  /** The version number (binding `version`) or version tag (`versionTag`) as text; null when not given. */
  version: string | null;
  /** Copy all child variables back on completion (Zeebe default true; Camunda `camunda:out variables="all"`). */
  propagateAllChildVariables: boolean;
  /** Copy all parent variables into the child (Camunda `camunda:in variables="all"`). */
  propagateAllParentVariables: boolean;
  /**
   * Camunda `camunda:in businessKey="…"`: the expression text giving the called instance's
   * business key. Absent: the called instance gets the caller's business key.
   */
  businessKey?: string;
}

/**
 * A call activity's called element as modelled: its key, and its version under binding `version`,
 * are constant text or an expression evaluated when the activity is entered (Camunda 7 JUEL
 * `calledElement="${…}"`, Zeebe FEEL `processId="=…"`), which gives a {@link CalledElement}.
 */
export interface CalledElementModel extends Omit<CalledElement, 'processKey'> {
  /** The called process key as written, or null when {@link processKeyExpression} gives it. */
  processKey: string | null;
  /** Model expression text (FEEL, or marked JUEL) giving the process key; absent for a constant. */
  processKeyExpression?: string;
  /** Model expression text giving the version number of binding `version`; `version` is then null. */
  versionExpression?: string;
}

/** Call activity: starts another process. */
export interface CallActivityModel extends ActivityBase {
  type: 'callActivity';
  calledElement: CalledElementModel;
}

/** Any element of a compiled process. */
export type ElementModel =
  | StartEventModel
  | EndEventModel
  | IntermediateCatchEventModel
  | IntermediateThrowEventModel
  | BoundaryEventModel
  | ExclusiveGatewayModel
  | InclusiveGatewayModel
  | ComplexGatewayModel
  | ParallelGatewayModel
  | EventBasedGatewayModel
  | ServiceTaskModel
  | SendTaskModel
  | ReceiveTaskModel
  | UserTaskModel
  | ScriptTaskModel
  | BusinessRuleTaskModel
  | ManualTaskModel
  | TaskModel
  | SubProcessModel
  | CallActivityModel;

/** A sequence flow. */
export interface FlowModel {
  id: string;
  name: string | null;
  sourceId: string;
  targetId: string;
  /** FEEL condition text, or null for an unconditional flow. */
  condition: string | null;
  /** True when the source's `default` names this flow. */
  isDefault: boolean;
  /** Camunda 7 `take` execution listeners; absent in older models. */
  listeners?: ListenerModel[];
}

/** A message flow between pools, kept as data; `*ProcessKey` is null when the end is not in a process. */
export interface MessageFlowModel {
  id: string;
  name: string | null;
  sourceRef: string;
  targetRef: string;
  sourceProcessKey: string | null;
  targetProcessKey: string | null;
  messageName: string | null;
}

/** Top-level start events of a process, by trigger. */
export interface StartEventIds {
  none: string[];
  timer: string[];
  message: string[];
  signal: string[];
}

/** One executable process. */
export interface ProcessModel extends ScopeModel {
  processKey: string;
  name: string;
  elements: Record<string, ElementModel>;
  flows: Record<string, FlowModel>;
  startEventIds: StartEventIds;
  /** Message flows of the document's collaboration that touch this process. */
  messageFlows: MessageFlowModel[];
  /** Weft extension elements on the process element. */
  extensions: RawXmlElement[];
  /** Camunda 7 `start` and `end` execution listeners of the process; absent in older models. */
  listeners?: ListenerModel[];
  /**
   * Camunda 7 `camunda:historyTimeToLive` in days, as deployed; absent when the process has none.
   * The version's current value (which an operator may change) is its definition row's.
   */
  historyTimeToLive?: number;
}

/** A reason why a document cannot be deployed; `elementId` is null for document-level problems. */
export interface ModelProblem {
  elementId: string | null;
  message: string;
}

/** How a weft extension element is treated; registered by local name in the compile options. */
export interface ExtensionSpec {
  /** Element types this extension implements: such an element needs no topic / FEEL script. */
  implements?: ElementType[];
  /** Checks the raw element; returns problem messages (empty when valid). */
  validate?: (raw: RawXmlElement) => string[];
}

/** Options for {@link compileBpmn}. */
export interface CompileOptions {
  /** Weft extension elements by local name. Unregistered weft elements are kept raw, unchecked. */
  extensions?: Record<string, ExtensionSpec>;
  /** Largest accepted document, in UTF-16 code units; default 8 MiB. */
  maxLength?: number;
}

/** The result of compiling a BPMN document: every problem found, or the models. */
export type CompileResult = { ok: true; processes: ProcessModel[] } | { ok: false; problems: ModelProblem[] };
