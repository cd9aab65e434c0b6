import type { Pool } from '../../platform/database/pool.js';
import { isPlatformAdmin, requireOrgRole, rolesIn } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { EngineMetrics } from '../engine/driver/engine-metrics.js';
import type { Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import { findUserTask, listOpenUserTasks, type UserTaskRecord } from '../engine/store/user-tasks.js';

/** Open user tasks: list and complete. */
export class UserTaskService {
  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    private readonly metrics: EngineMetrics,
  ) {}

  /** Open tasks of an org, oldest first, optionally by assignee or instance (any member). */
  async list(
    identity: Identity,
    filter: { orgId: string; assignee?: string | undefined; processInstanceId?: string | undefined },
  ): Promise<UserTaskRecord[]> {
    requireOrgRole(identity, filter.orgId, ['Developer', 'Operator', 'Reader', 'Worker']);
    return listOpenUserTasks(this.pool, filter);
  }

  /**
   * Completes a task with variables. Allowed to an Operator of the org, and to the task's assignee
   * (by user id or email) who is a member of the org.
   */
  async complete(identity: Identity, taskId: string, variables: Variables): Promise<void> {
    const task = await findUserTask(this.pool, taskId);
    if (!task) throw WorkflowErrors.notFound('No such open user task');
    const isAssignee =
      task.assignee !== null &&
      (task.assignee === identity.userId || task.assignee.toLowerCase() === identity.email.toLowerCase()) &&
      (rolesIn(identity, task.org_id).length > 0 || isPlatformAdmin(identity));
    if (!isAssignee) requireOrgRole(identity, task.org_id, ['Operator']);
    await this.driver.apply(task.process_instance_id, { type: 'complete', waitId: taskId, variables });
    this.metrics.job('user_task', 'completed');
  }
}
