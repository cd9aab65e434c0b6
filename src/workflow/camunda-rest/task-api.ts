import type { Pool } from '../../platform/database/pool.js';
import { isServiceError } from '../../platform/http/service-error.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import { findInstance } from '../engine/store/process-instances.js';
import * as userTasks from '../engine/store/user-tasks.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import type { UserTaskService } from '../user-tasks/user-task-service.js';
import { CamundaError, CamundaErrors } from './camunda-errors.js';
import { isWeftId, type Page } from './query-parameters.js';
import { roleScopeOf } from './role-scope.js';
import { taskDto, type TaskDto } from './task-dto.js';
import { deploymentIdOf } from '../engine/store/deployment-view.js';
import { deployedFormOf, formDto, type FormDto } from './form-dto.js';
import type { Tenants } from './tenants.js';
import { decodeVariables, encodeVariables, type TypedVariables } from './variables.js';

/** The roles that may read an org's user tasks (weft's GET /api/v1/tasks). */
export const taskReaderRoles: readonly OrgRole[] = ['Developer', 'Operator', 'Reader', 'Worker'];

/** A page of GET /task and the filters of it and of /count. */
export interface CamundaUserTaskQuery {
  query: Omit<userTasks.UserTaskQuery, 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  page: Page;
  order: { by: userTasks.UserTaskOrder; descending: boolean } | undefined;
}

/** POST /task/{id}/complete, read. */
export interface CompleteTaskRequest {
  variables: unknown;
  withVariablesInReturn: boolean;
}

/**
 * Camunda 7's task API over weft's user task service: the service decides who may claim, unclaim
 * and complete (as on weft's own API); this translates fields, filters, users and answers. A task
 * of an org the caller may not read is unknown (404), as Camunda hides what a user may not see.
 */
export class CamundaTaskApi {
  constructor(
    private readonly pool: Pool,
    private readonly service: UserTaskService,
    private readonly tenants: Tenants,
  ) {}

  /** GET /task. */
  async list(request: CamundaUserTaskQuery, identity: Identity): Promise<TaskDto[]> {
    const query = await this.query(request, identity);
    if (query === null) return [];
    const rows = await userTasks.queryUserTasks(this.pool, query, {
      offset: request.page.firstResult,
      limit: request.page.maxResults,
      order: request.order,
    });
    return rows.map(taskDto);
  }

  /** GET /task/count. */
  async count(request: CamundaUserTaskQuery, identity: Identity): Promise<number> {
    const query = await this.query(request, identity);
    return query === null ? 0 : userTasks.countUserTasks(this.pool, query);
  }

  /** GET /task/{id}. */
  async get(taskId: string, identity: Identity): Promise<TaskDto> {
    return taskDto(await this.visibleTask(taskId, identity));
  }

  /**
   * POST /task/{id}/claim: weft lets a caller claim a task only for itself, so `userId` must name
   * the caller (its email, in any case, or its weft user id); an empty one unclaims, as in Camunda.
   */
  async claim(taskId: string, userId: string | null | undefined, identity: Identity): Promise<void> {
    if (userId === null || userId === undefined || userId === '') return this.unclaim(taskId, identity);
    await this.visibleTask(taskId, identity);
    requireSelf(userId, identity);
    try {
      await this.service.claim(identity, taskId);
    } catch (error) {
      if (isServiceError(error) && error.statusCode === 409) throw alreadyClaimed(taskId);
      throw notFoundAs(error, taskId);
    }
  }

  /** POST /task/{id}/unclaim: the assignee, or an Operator. */
  async unclaim(taskId: string, identity: Identity): Promise<void> {
    await this.visibleTask(taskId, identity);
    await this.onTask(taskId, () => this.service.unclaim(identity, taskId));
  }

  /**
   * POST /task/{id}/assignee: as a claim (weft does not assign a task to someone else, nor take it
   * from its assignee); null unclaims.
   */
  async setAssignee(taskId: string, userId: string | null | undefined, identity: Identity): Promise<void> {
    await this.claim(taskId, userId, identity);
  }

  /**
   * POST /task/{id}/complete: the assignee or an Operator, with typed variables. With
   * `withVariablesInReturn` the answer is the instance's variables after the completion.
   */
  async complete(
    taskId: string,
    request: CompleteTaskRequest,
    identity: Identity,
  ): Promise<TypedVariables | undefined> {
    const task = await this.visibleTask(taskId, identity);
    const variables = decodeVariables(request.variables);
    await this.onTask(taskId, () => this.service.complete(identity, taskId, variables));
    if (!request.withVariablesInReturn) return undefined;
    const instance = await findInstance(this.pool, task.process_instance_id);
    return encodeVariables(instance?.variables ?? {});
  }

  /**
   * GET /task/{id}/variables and /form-variables: the variables the task sees (as weft's own API
   * shows them: those of its scope when it opened), all or the named ones.
   */
  async variables(
    taskId: string,
    names: readonly string[] | undefined,
    identity: Identity,
  ): Promise<TypedVariables> {
    const task = await this.visibleTask(taskId, identity);
    return encodeVariables(task.variables as Parameters<typeof encodeVariables>[0], names);
  }

  /** GET /task/{id}/form: the form key and `camunda:formRef` of the model. */
  async form(taskId: string, identity: Identity): Promise<FormDto> {
    const task = await this.visibleTask(taskId, identity);
    return formDto(task.form_key, task.form_ref);
  }

  /**
   * GET /task/{id}/deployed-form: the form-js JSON of the task's form (a Camunda Form deployed
   * alongside, or one embedded in the document), as GET /api/v1/tasks/{id} finds it.
   */
  async deployedForm(taskId: string, identity: Identity): Promise<Record<string, unknown>> {
    const task = await this.visibleTask(taskId, identity);
    let outcome;
    try {
      outcome = await this.service.form(identity, taskId);
    } catch (error) {
      throw notFoundAs(error, taskId);
    }
    return deployedFormOf(outcome, () => deploymentIdOf(this.pool, task.definition_id));
  }

  private async visibleTask(
    taskId: string,
    identity: Identity,
  ): Promise<NonNullable<Awaited<ReturnType<typeof userTasks.findUserTaskView>>>> {
    if (!isWeftId(taskId)) throw taskNotFound(taskId);
    const task = await userTasks.findUserTaskView(this.pool, taskId);
    if (task === null || !inScope(readScope(identity), task.org_id)) throw taskNotFound(taskId);
    return task;
  }

  private async query(
    request: CamundaUserTaskQuery,
    identity: Identity,
  ): Promise<userTasks.UserTaskQuery | null> {
    const scope = await this.tenants.narrow(readScope(identity), request.tenantIds);
    const { ids, processInstanceIds, definitionId } = request.query;
    // Ids that cannot be weft's select nothing (and must not reach the uuid casts).
    if (ids !== undefined && !ids.every(isWeftId)) return null;
    if (processInstanceIds !== undefined && !processInstanceIds.every(isWeftId)) return null;
    if (definitionId !== undefined && !isWeftId(definitionId)) return null;
    return { ...request.query, orgIds: scope === 'all' ? undefined : scope.orgIds };
  }

  // weft's 404 gets Camunda's wording; its other errors (403, 409) go as they are.
  private async onTask(taskId: string, action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      throw notFoundAs(error, taskId);
    }
  }
}

// Without any reading role anywhere, a caller sees no task (rather than a 403 on a list).
function readScope(identity: Identity): TaskScope {
  try {
    return roleScopeOf(identity, taskReaderRoles);
  } catch {
    return { orgIds: [] };
  }
}

function inScope(scope: TaskScope, orgId: string): boolean {
  return scope === 'all' || scope.orgIds.includes(orgId);
}

function requireSelf(userId: string, identity: Identity): void {
  if (userId === identity.userId || userId.toLowerCase() === identity.email.toLowerCase()) return;
  throw CamundaErrors.forbidden(
    `weft assigns a task only to the caller who claims it: userId must be the caller's email (${identity.email})`,
  );
}

function notFoundAs(error: unknown, taskId: string): unknown {
  return isServiceError(error) && error.statusCode === 404 ? taskNotFound(taskId) : error;
}

function taskNotFound(taskId: string): Error {
  return CamundaErrors.notFound(`No matching task with id ${taskId}`);
}

function alreadyClaimed(taskId: string): Error {
  return new CamundaError(
    400,
    'TaskAlreadyClaimedException',
    `Task '${taskId}' is already claimed by someone else.`,
  );
}
