import { api } from '../../session.js';

/** An open user task (`GET /api/v1/tasks`). */
export interface UserTask {
  id: string;
  process_instance_id: string;
  activity_id: string;
  name: string | null;
  assignee: string | null;
  candidate_groups: string[];
  candidate_users: string[];
  variables: Record<string, unknown>;
  created_at: string;
}

/** One open task with its form (`GET /api/v1/tasks/{id}`). */
export interface UserTaskDetails extends UserTask {
  process_key: string;
  form_key: string | null;
  /** The @bpmn-io/form-js schema when the model embeds the form or references a deployed Camunda Form. */
  form: Record<string, unknown> | null;
}

/** Completes a task with the variables a form gave. */
export function completeTask(taskId: string, variables: Record<string, unknown>): Promise<void> {
  return api.post<void>(`/api/v1/tasks/${taskId}/complete`, { variables });
}

/** The name a task shows: its BPMN name, else its element id. */
export function taskTitle(task: UserTask): string {
  return task.name ?? task.activity_id;
}
