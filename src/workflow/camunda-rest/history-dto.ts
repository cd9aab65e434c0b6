import type { QueriedInstance } from '../engine/store/process-instances.js';
import { formatCamundaDate } from './camunda-date.js';

/*
 * weft's instances (running and ended) in the shape of Camunda 7's HistoricProcessInstanceDto.
 * weft keeps no start user, start activity, delete reason or removal time; a call activity's
 * instance names its caller as super instance, and the root of a top-level instance is itself.
 */

/** Camunda's states of a historic process instance. */
export type HistoricState =
  'ACTIVE' | 'SUSPENDED' | 'COMPLETED' | 'EXTERNALLY_TERMINATED' | 'INTERNALLY_TERMINATED';

/** Camunda's HistoricProcessInstanceDto. */
export interface HistoricProcessInstanceDto {
  id: string;
  rootProcessInstanceId: string | null;
  superProcessInstanceId: string | null;
  superCaseInstanceId: null;
  caseInstanceId: null;
  processDefinitionName: string;
  processDefinitionKey: string;
  processDefinitionVersion: number | null;
  processDefinitionId: string;
  businessKey: string | null;
  startTime: string;
  endTime: string | null;
  removalTime: null;
  durationInMillis: number | null;
  startUserId: null;
  startActivityId: null;
  deleteReason: string | null;
  tenantId: string;
  state: HistoricState;
}

/**
 * weft's instance states as Camunda's: running and incident are ACTIVE (SUSPENDED when suspended),
 * completed COMPLETED, cancelled (by an operator) EXTERNALLY_TERMINATED, terminated (by a terminate
 * end event or an error that ended it) INTERNALLY_TERMINATED.
 */
export function historicState(instance: QueriedInstance): HistoricState {
  switch (instance.state) {
    case 'completed':
      return 'COMPLETED';
    case 'cancelled':
      return 'EXTERNALLY_TERMINATED';
    case 'terminated':
      return 'INTERNALLY_TERMINATED';
    default:
      return instance.suspended ? 'SUSPENDED' : 'ACTIVE';
  }
}

/** Which weft states (and suspension) a Camunda state filter selects. */
export function statesOf(state: HistoricState): { states: string[]; suspended?: boolean } {
  switch (state) {
    case 'ACTIVE':
      return { states: ['running', 'incident'], suspended: false };
    case 'SUSPENDED':
      return { states: ['running', 'incident'], suspended: true };
    case 'COMPLETED':
      return { states: ['completed'] };
    case 'EXTERNALLY_TERMINATED':
      return { states: ['cancelled'] };
    case 'INTERNALLY_TERMINATED':
      return { states: ['terminated'] };
  }
}

/** An instance as Camunda's history shows it. */
export function historicProcessInstanceDto(instance: QueriedInstance): HistoricProcessInstanceDto {
  const started = new Date(instance.started_at);
  const ended = instance.ended_at === null ? null : new Date(instance.ended_at);
  return {
    id: instance.id,
    rootProcessInstanceId: instance.parent_instance_id === null ? instance.id : null,
    superProcessInstanceId: instance.parent_instance_id,
    superCaseInstanceId: null,
    caseInstanceId: null,
    processDefinitionName: instance.definition_name,
    processDefinitionKey: instance.process_key,
    processDefinitionVersion: instance.definition_version,
    processDefinitionId: instance.definition_id,
    businessKey: instance.business_key,
    startTime: formatCamundaDate(started),
    endTime: ended === null ? null : formatCamundaDate(ended),
    removalTime: null,
    durationInMillis: ended === null ? null : ended.getTime() - started.getTime(),
    startUserId: null,
    startActivityId: null,
    deleteReason: instance.state === 'cancelled' ? 'Cancelled' : null,
    tenantId: instance.tenant_id,
    state: historicState(instance),
  };
}
