import type { Pool } from '../../platform/database/pool.js';
import { isPlatformAdmin, requireOrgRole, rolesIn } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { EngineMetrics } from '../engine/driver/engine-metrics.js';
import type { Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import {
  findUserTask,
  findUserTaskDetails,
  findUserTaskSite,
  listOpenUserTasks,
  setUserTaskAssignee,
  type UserTaskDetailsRecord,
  type UserTaskFilter,
  type UserTaskRecord,
} from '../engine/store/user-tasks.js';
import type { FormOutcome, FormService } from '../forms/form-service.js';
import type { FormReference } from '../engine/model/index.js';
import type { ModelCache } from '../deployments/model-cache.js';
import { EngineCallError } from '../engine/driver/driver-errors.js';
import { hasTaskListeners } from '../engine/runtime/task-listeners.js';

/** An open task with its process key, form key and reference, and its form-js schema (null when none). */
export type UserTaskDetails = UserTaskRecord & {
  process_key: string;
  form_key: string | null;
  form_ref: { form_key: string; binding: FormReference['binding']; version: number | null } | null;
  form: Record<string, unknown> | null;
};

const MEMBER_ROLES = ['Developer', 'Operator', 'Reader', 'Worker'] as const;

/** Open user tasks: list, read, claim, unclaim and complete. */
export class UserTaskService {
  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    private readonly metrics: EngineMetrics,
    private readonly models: ModelCache,
    private readonly forms: FormService,
  ) {}

  /** Open tasks of an org, oldest first, optionally by assignee or instance, a page (any member). */
  async list(identity: Identity, filter: UserTaskFilter): Promise<UserTaskRecord[]> {
    requireOrgRole(identity, filter.orgId, MEMBER_ROLES);
    return listOpenUserTasks(this.pool, filter);
  }

  /**
   * One open task with its form (any member of its org): the form-js schema its form key or
   * `camunda:formRef` names (embedded in the document, or a Camunda Form deployed alongside), else null.
   */
  async get(identity: Identity, taskId: string): Promise<UserTaskDetails> {
    const { task, form } = await this.withForm(identity, taskId);
    const { definition_id: _definition, form_ref: ref, ...details } = task;
    return {
      ...details,
      form_ref: ref === null ? null : { form_key: ref.formKey, binding: ref.binding, version: ref.version },
      form: form.kind === 'found' ? form.schema : null,
    };
  }

  /** What the form of an open task is (any member of its org), and why there is none when there is none. */
  async form(identity: Identity, taskId: string): Promise<FormOutcome> {
    return (await this.withForm(identity, taskId)).form;
  }

  private async withForm(
    identity: Identity,
    taskId: string,
  ): Promise<{ task: UserTaskDetailsRecord; form: FormOutcome }> {
    const task = await findUserTaskDetails(this.pool, taskId);
    if (!task) throw WorkflowErrors.notFound('No such open user task');
    requireOrgRole(identity, task.org_id, MEMBER_ROLES);
    return { task, form: await this.forms.resolve(task.definition_id, task.form_key, task.form_ref) };
  }

  /**
   * Assigns an unassigned task to the caller (by email): an Operator or Worker of the org. Claiming
   * a task the caller holds already changes nothing; one held by someone else is a 409.
   */
  async claim(identity: Identity, taskId: string): Promise<void> {
    const task = await findUserTask(this.pool, taskId);
    if (!task) throw WorkflowErrors.notFound('No such open user task');
    requireOrgRole(identity, task.org_id, ['Operator', 'Worker']);
    if (task.assignee !== null && isAssignee(identity, task.assignee)) return;
    if (task.assignee !== null) throw WorkflowErrors.conflict(`The task is assigned to ${task.assignee}`);
    if (await this.assignThroughEngine(task.process_instance_id, taskId, identity.email)) return;
    if (!(await setUserTaskAssignee(this.pool, taskId, identity.email))) {
      const now = await findUserTask(this.pool, taskId);
      if (!now) throw WorkflowErrors.notFound('No such open user task');
      throw WorkflowErrors.conflict(`The task is assigned to ${now.assignee ?? 'someone else'}`);
    }
  }

  /** Clears the assignee of a task: its assignee (a member of the org) or an Operator. */
  async unclaim(identity: Identity, taskId: string): Promise<void> {
    const task = await findUserTask(this.pool, taskId);
    if (!task) throw WorkflowErrors.notFound('No such open user task');
    if (!holdsTask(identity, task)) requireOrgRole(identity, task.org_id, ['Operator']);
    if (await this.assignThroughEngine(task.process_instance_id, taskId, null)) return;
    if (!(await setUserTaskAssignee(this.pool, taskId, null)))
      throw WorkflowErrors.notFound('No such open user task');
  }

  /**
   * A task whose element has `assignment` listeners (Camunda 7) is assigned by an engine call, so
   * the listeners run and what they set is written with the new assignee; false for any other task
   * (a plain row update is enough, and cheaper).
   */
  private async assignThroughEngine(
    instanceId: string,
    taskId: string,
    assignee: string | null,
  ): Promise<boolean> {
    const site = await findUserTaskSite(this.pool, taskId);
    if (!site) throw WorkflowErrors.notFound('No such open user task');
    const element = (await this.models.get(site.definition_id)).elements[site.activity_id];
    if (element === undefined || !hasTaskListeners(element, 'assignment')) return false;
    try {
      await this.driver.apply(instanceId, {
        type: 'assignTask',
        waitId: taskId,
        assignee,
        claim: assignee !== null,
      });
    } catch (error) {
      if (error instanceof EngineCallError && error.kind === 'notFound')
        throw WorkflowErrors.notFound('No such open user task');
      if (error instanceof EngineCallError && error.kind === 'conflict')
        throw WorkflowErrors.conflict(error.message);
      throw error;
    }
    return true;
  }

  /**
   * Completes a task with variables. Allowed to an Operator of the org, and to the task's assignee
   * (by user id or email) who is a member of the org.
   */
  async complete(identity: Identity, taskId: string, variables: Variables): Promise<void> {
    const task = await findUserTask(this.pool, taskId);
    if (!task) throw WorkflowErrors.notFound('No such open user task');
    if (!holdsTask(identity, task)) requireOrgRole(identity, task.org_id, ['Operator']);
    await this.driver.apply(task.process_instance_id, { type: 'complete', waitId: taskId, variables });
    this.metrics.job('user_task', 'completed');
  }
}

// An assignee names a user by id or by email.
function isAssignee(identity: Identity, assignee: string): boolean {
  return assignee === identity.userId || assignee.toLowerCase() === identity.email.toLowerCase();
}

// The caller is the task's assignee and still a member of its org.
function holdsTask(identity: Identity, task: { org_id: string; assignee: string | null }): boolean {
  return (
    task.assignee !== null &&
    isAssignee(identity, task.assignee) &&
    (rolesIn(identity, task.org_id).length > 0 || isPlatformAdmin(identity))
  );
}
