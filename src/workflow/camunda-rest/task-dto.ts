import type { UserTaskView } from '../engine/store/user-tasks.js';
import { formatCamundaDate } from './camunda-date.js';
import { camundaFormRefDto, type CamundaFormRefDto } from './form-dto.js';

/*
 * weft's open user tasks in the shape of Camunda 7's TaskDto. weft keeps no owners, delegation,
 * descriptions, priorities, sub-tasks or cases: those fields are null (the priority Camunda's
 * default, 50). The execution id is the task id (docs/workflow/camunda7.md, Tasks).
 */

/** Camunda's priority of a task that sets none; every weft task has it. */
export const defaultTaskPriority = 50;

/** Camunda's TaskDto (GET /task, GET /task/{id}). */
export interface TaskDto {
  id: string;
  name: string | null;
  assignee: string | null;
  owner: null;
  created: string;
  lastUpdated: null;
  due: string | null;
  followUp: string | null;
  delegationState: null;
  description: null;
  executionId: string;
  parentTaskId: null;
  priority: number;
  processDefinitionId: string;
  processInstanceId: string;
  caseExecutionId: null;
  caseDefinitionId: null;
  caseInstanceId: null;
  taskDefinitionKey: string;
  suspended: boolean;
  formKey: string | null;
  camundaFormRef: CamundaFormRefDto | null;
  tenantId: string | null;
}

/** An open task as Camunda shows it. */
export function taskDto(task: UserTaskView): TaskDto {
  return {
    id: task.id,
    name: task.name,
    assignee: task.assignee,
    owner: null,
    created: formatCamundaDate(task.created_at),
    lastUpdated: null,
    due: modelDate(task.due_date),
    followUp: modelDate(task.follow_up_date),
    delegationState: null,
    description: null,
    executionId: task.id,
    parentTaskId: null,
    priority: defaultTaskPriority,
    processDefinitionId: task.definition_id,
    processInstanceId: task.process_instance_id,
    caseExecutionId: null,
    caseDefinitionId: null,
    caseInstanceId: null,
    taskDefinitionKey: task.activity_id,
    suspended: task.suspended,
    formKey: task.form_key,
    camundaFormRef: camundaFormRefDto(task.form_ref),
    tenantId: task.org_slug,
  };
}

// A due or follow-up date is the text the model's expression gave; one that is no date shows as null.
function modelDate(text: string | null): string | null {
  if (text === null) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : formatCamundaDate(date);
}
