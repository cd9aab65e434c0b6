import type { TypedVariables } from './variables.js';

/*
 * Camunda 7's MessageCorrelationResultWithVariableDto: what a correlation with `resultEnabled`
 * answers, one per execution it triggered or instance it started. weft's execution is the wait the
 * message completed (its id the wait id).
 */

/** Camunda's ExecutionDto, as a correlation result carries it. */
export interface ExecutionDto {
  id: string;
  processInstanceId: string;
  ended: boolean;
  tenantId: string | null;
}

/** Camunda's ProcessInstanceDto, as a correlation result carries it. */
export interface ProcessInstanceDto {
  links: [];
  id: string;
  definitionId: string;
  businessKey: string | null;
  caseInstanceId: null;
  ended: boolean;
  suspended: boolean;
  tenantId: string | null;
}

/** One result of a correlation. */
export interface MessageCorrelationResultDto {
  resultType: 'Execution' | 'ProcessDefinition';
  execution: ExecutionDto | null;
  processInstance: ProcessInstanceDto | null;
  variables?: TypedVariables;
}
