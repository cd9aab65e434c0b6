import type { ElementModel, ProcessModel } from '../engine/model/index.js';
import type { ExternalTaskDetails, LockedTask } from '../engine/store/external-tasks.js';
import { formatCamundaDate } from './camunda-date.js';
import { encodeVariables, type TypedVariables } from './variables.js';

/*
 * weft's external tasks in the shapes of Camunda 7's ExternalTaskDto and LockedExternalTaskDto.
 * weft keeps no activity instances, executions, priorities, version tags or error details: the
 * activity instance id is `<activityId>:<taskId>`, the execution id the task id, the priority 0, and
 * the rest null (docs/workflow/camunda7.md, External tasks).
 */

/** Camunda's ExternalTaskDto (GET /external-task). */
export interface ExternalTaskDto {
  id: string;
  topicName: string;
  workerId: string | null;
  lockExpirationTime: string | null;
  createTime: string;
  retries: number;
  errorMessage: string | null;
  activityId: string;
  activityInstanceId: string;
  executionId: string;
  processInstanceId: string;
  processDefinitionId: string | null;
  processDefinitionKey: string | null;
  processDefinitionVersionTag: null;
  tenantId: string | null;
  businessKey: string | null;
  priority: number;
  suspended: boolean;
}

/** Camunda's LockedExternalTaskDto (fetchAndLock). */
export interface LockedExternalTaskDto {
  id: string;
  topicName: string;
  workerId: string;
  lockExpirationTime: string;
  createTime: string;
  retries: number;
  errorMessage: string | null;
  errorDetails: null;
  activityId: string;
  activityInstanceId: string;
  executionId: string;
  processInstanceId: string;
  processDefinitionId: string | null;
  processDefinitionKey: string | null;
  processDefinitionVersionTag: null;
  tenantId: string | null;
  businessKey: string | null;
  priority: number;
  variables: TypedVariables;
  extensionProperties: Record<string, string>;
}

/** A listed task as Camunda shows it. */
export function externalTaskDto(task: ExternalTaskDetails): ExternalTaskDto {
  return {
    id: task.id,
    topicName: task.topic,
    workerId: task.worker_id,
    lockExpirationTime: task.lock_expires_at === null ? null : formatCamundaDate(task.lock_expires_at),
    createTime: formatCamundaDate(task.created_at),
    retries: task.retries,
    errorMessage: task.error_message,
    activityId: task.activity_id,
    activityInstanceId: `${task.activity_id}:${task.id}`,
    executionId: task.id,
    processInstanceId: task.process_instance_id,
    processDefinitionId: task.definition_id,
    processDefinitionKey: task.process_key,
    processDefinitionVersionTag: null,
    tenantId: task.org_slug,
    businessKey: task.business_key,
    priority: 0,
    suspended: task.suspended,
  };
}

/** A task just locked, with its variables (all, or the named ones) and extension properties. */
export function lockedExternalTaskDto(
  locked: LockedTask,
  details: ExternalTaskDetails | undefined,
  options: {
    workerId: string;
    variableNames: readonly string[] | undefined;
    model: ProcessModel | undefined;
  },
): LockedExternalTaskDto {
  const { workerId, variableNames, model } = options;
  return {
    id: locked.id,
    topicName: locked.topic_name,
    workerId,
    lockExpirationTime: formatCamundaDate(new Date(locked.lock_expires_at)),
    createTime: details ? formatCamundaDate(details.created_at) : formatCamundaDate(new Date()),
    retries: locked.retries,
    errorMessage: details?.error_message ?? null,
    errorDetails: null,
    activityId: locked.activity_id,
    activityInstanceId: `${locked.activity_id}:${locked.id}`,
    executionId: locked.id,
    processInstanceId: locked.process_instance_id,
    processDefinitionId: details?.definition_id ?? null,
    processDefinitionKey: details?.process_key ?? null,
    processDefinitionVersionTag: null,
    tenantId: details?.org_slug ?? null,
    businessKey: details?.business_key ?? null,
    priority: 0,
    variables: encodeVariables(locked.variables, variableNames),
    extensionProperties: model === undefined ? {} : extensionProperties(model.elements[locked.activity_id]),
  };
}

// The static properties of the task's job: Zeebe task headers, and whatever else the model reader
// puts there (camunda:properties).
function extensionProperties(element: ElementModel | undefined): Record<string, string> {
  const job = (element as { job?: { headers?: Record<string, string> } | null } | undefined)?.job;
  return { ...(job?.headers ?? {}) };
}
