import type { Pool } from '../../platform/database/pool.js';
import { isPlatformAdmin, requireOrgRole, rolesIn } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { EngineMetrics } from '../engine/driver/engine-metrics.js';
import type { Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';

/** An open user task. */
export interface UserTaskRecord {
  id: string;
  org_id: string;
  process_instance_id: string;
  activity_id: string;
  name: string | null;
  assignee: string | null;
  candidate_groups: string[];
  variables: Record<string, unknown>;
  created_at: string;
}

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
    const { rows } = await this.pool.query<Omit<UserTaskRecord, 'created_at'> & { created_at: Date }>(
      `SELECT id, org_id, process_instance_id, activity_id, name, assignee, candidate_groups, variables, created_at
       FROM user_tasks
       WHERE org_id = $1 AND ($2::text IS NULL OR assignee = $2) AND ($3::uuid IS NULL OR process_instance_id = $3)
       ORDER BY created_at, id LIMIT 1000`,
      [filter.orgId, filter.assignee ?? null, filter.processInstanceId ?? null],
    );
    return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
  }

  /**
   * Completes a task with variables. Allowed to an Operator of the org, and to the task's assignee
   * (by user id or email) who is a member of the org.
   */
  async complete(identity: Identity, taskId: string, variables: Variables): Promise<void> {
    const { rows } = await this.pool.query<{
      org_id: string;
      process_instance_id: string;
      assignee: string | null;
    }>('SELECT org_id, process_instance_id, assignee FROM user_tasks WHERE id = $1', [taskId]);
    const task = rows[0];
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
