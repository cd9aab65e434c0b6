/**
 * The BPMN model compiler: BPMN 2.0 XML in, validated executable process models out. Pure: no
 * database, no clock, no I/O.
 */
export { compileBpmn } from './compile.js';
export { bpmnContentHash } from './content-hash.js';
export { DEFAULT_MAX_LENGTH } from './xml-guard.js';
export { MAX_HISTORY_TIME_TO_LIVE } from './history-time-to-live.js';
export { NS as BPMN_NAMESPACES } from './moddle-node.js';
export { defaultJobRetryCycle } from './async-continuations.js';
export type {
  AsyncContinuations,
  BusinessRuleTaskModel,
  CallActivityModel,
  CalledElement,
  CalledElementModel,
  CompileOptions,
  ComplexGatewayModel,
  CompileResult,
  ConditionalVariableEvent,
  DecisionReference,
  DecisionReferenceModel,
  ElementModel,
  EndEventModel,
  EventDefinition,
  ExtensionSpec,
  FlowModel,
  FormReference,
  JobDefinition,
  JobRetryCycle,
  ListenerModel,
  MappingValue,
  ModelProblem,
  MultiInstanceModel,
  ProcessModel,
  RawXmlElement,
  ScopeModel,
  StandardLoopModel,
  StartEventModel,
  SubProcessModel,
  TimerDefinition,
  UserTaskModel,
  VariableMapping,
} from './types.js';
