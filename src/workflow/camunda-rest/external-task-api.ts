import type { Static } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import { isServiceError } from '../../platform/http/service-error.js';
import type { ModelCache } from '../deployments/model-cache.js';
import type { ProcessModel } from '../engine/model/index.js';
import * as tasks from '../engine/store/external-tasks.js';
import type { ExternalTaskService, FetchRequest } from '../external-tasks/external-task-service.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';
import {
  externalTaskDto,
  lockedExternalTaskDto,
  type ExternalTaskDto,
  type LockedExternalTaskDto,
} from './external-task-dto.js';
import type {
  BpmnErrorBody,
  CompleteBody,
  ExtendLockBody,
  FailureBody,
  FetchAndLockBody,
} from './external-task-schemas.js';
import type { Tenants } from './tenants.js';
import { decodeVariables } from './variables.js';

// weft's own bounds of one fetch (src/workflow/external-tasks/schemas.ts): larger asks are cut to them.
const maxTasksPerFetch = 100;
const maxLongPollMs = 300_000;
// Bounds of what a failure report stores.
const maxErrorMessageLength = 10_000;
// No definition has the nil UUID: a filter of ids that cannot be weft's matches no task with it.
const noDefinition = '00000000-0000-0000-0000-000000000000';
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where a fetch may look, and how its long poll ends early. */
export interface CamundaFetchOptions {
  scope: TaskScope;
  rescope: () => Promise<TaskScope>;
  signal: AbortSignal;
}

/** A page of GET /external-task and the filters of it and of /count. */
export interface CamundaTaskQuery {
  query: Omit<tasks.ExternalTaskQuery, 'now' | 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  firstResult: number;
  maxResults: number;
}

/**
 * Camunda 7's external-task API over weft's external task service: the service does the locking,
 * long polling and reports; this translates fields, variables, filters, tenants and answers.
 */
export class CamundaExternalTaskApi {
  constructor(
    private readonly pool: Pool,
    private readonly service: ExternalTaskService,
    private readonly models: ModelCache,
    private readonly tenants: Tenants,
    private readonly clock: Clock,
  ) {}

  /** fetchAndLock: locks tasks of the topics and answers them as LockedExternalTaskDto. */
  async fetchAndLock(
    body: Static<typeof FetchAndLockBody>,
    options: CamundaFetchOptions,
  ): Promise<LockedExternalTaskDto[]> {
    const topics = body.topics ?? [];
    if (body.maxTasks === 0 || topics.length === 0) return [];
    const request: FetchRequest = {
      worker_id: body.workerId,
      max_tasks: Math.min(body.maxTasks, maxTasksPerFetch),
      topics: [],
      async_response_timeout_ms: Math.min(body.asyncResponseTimeout ?? 0, maxLongPollMs),
      newest_first: body.sorting?.[0]?.sortOrder === 'desc',
    };
    for (const topic of topics) {
      if (topic.processDefinitionVersionTag !== undefined && topic.processDefinitionVersionTag !== null)
        throw CamundaErrors.invalid(
          'processDefinitionVersionTag is not supported: weft definitions have no version tags',
        );
      request.topics.push({
        topic_name: topic.topicName,
        lock_duration_ms: topic.lockDuration,
        filter: await this.topicFilter(topic, options.scope),
      });
    }
    const locked = await this.service.fetchAndLock(request, options);
    if (locked.length === 0) return [];
    const details = await tasks.listExternalTasks(
      this.pool,
      { ids: locked.map((task) => task.id), now: this.clock.now() },
      { offset: 0, limit: locked.length },
    );
    const detailsById = new Map(details.map((task) => [task.id, task]));
    const byTopic = new Map(topics.map((topic) => [topic.topicName, topic]));
    const answers: LockedExternalTaskDto[] = [];
    for (const task of locked) {
      const topic = byTopic.get(task.topic_name);
      const found = detailsById.get(task.id);
      const model =
        topic?.includeExtensionProperties === true && found?.definition_id
          ? await this.modelOf(found.definition_id)
          : undefined;
      answers.push(
        lockedExternalTaskDto(task, found, {
          workerId: body.workerId,
          variableNames: topic?.variables ?? undefined,
          model,
        }),
      );
    }
    return answers;
  }

  /** complete: `variables` and `localVariables` both go to the engine (variables win a clash). */
  async complete(taskId: string, body: Static<typeof CompleteBody>, scope: TaskScope): Promise<void> {
    const local = decodeVariables(body.localVariables, 'localVariables');
    const variables = decodeVariables(body.variables);
    await this.onTask(taskId, () =>
      this.service.complete(taskId, body.workerId, { ...local, ...variables }, scope),
    );
  }

  /** failure: a missing `retries` is 0 (an incident), as in Camunda. */
  async failure(taskId: string, body: Static<typeof FailureBody>, scope: TaskScope): Promise<void> {
    if (hasEntries(body.variables) || hasEntries(body.localVariables))
      throw CamundaErrors.invalid('Variables with a failure report are not supported by weft');
    await this.onTask(taskId, () =>
      this.service.fail(
        taskId,
        {
          worker_id: body.workerId,
          error_message: (body.errorMessage ?? '').slice(0, maxErrorMessageLength),
          retries: body.retries ?? 0,
          retry_timeout_ms: body.retryTimeout ?? 0,
        },
        scope,
      ),
    );
  }

  /** bpmnError: thrown at the task with its variables. */
  async bpmnError(taskId: string, body: Static<typeof BpmnErrorBody>, scope: TaskScope): Promise<void> {
    const variables = decodeVariables(body.variables);
    await this.onTask(taskId, () =>
      this.service.bpmnError(
        taskId,
        {
          worker_id: body.workerId,
          error_code: body.errorCode,
          ...(body.errorMessage == null ? {} : { error_message: body.errorMessage }),
          variables,
        },
        scope,
      ),
    );
  }

  /** extendLock: the lock then ends `newDuration` ms from now. */
  async extendLock(taskId: string, body: Static<typeof ExtendLockBody>, scope: TaskScope): Promise<void> {
    await this.onTask(taskId, () => this.service.extendLock(taskId, body.workerId, body.newDuration, scope));
  }

  /** unlock: any worker may fetch the task again. */
  async unlock(taskId: string, scope: TaskScope): Promise<void> {
    await this.onTask(taskId, () => this.service.unlock(taskId, scope));
  }

  /** GET /external-task: a page of tasks in the scope, oldest first. */
  async list(request: CamundaTaskQuery, scope: TaskScope): Promise<ExternalTaskDto[]> {
    const query = await this.query(request, scope);
    if (query === null) return [];
    const rows = await tasks.listExternalTasks(this.pool, query, {
      offset: request.firstResult,
      limit: request.maxResults,
    });
    return rows.map(externalTaskDto);
  }

  /** GET /external-task/count. */
  async count(request: CamundaTaskQuery, scope: TaskScope): Promise<number> {
    const query = await this.query(request, scope);
    return query === null ? 0 : tasks.countExternalTasks(this.pool, query);
  }

  /** GET /external-task/{id}: 404 for an unknown task and for one outside the scope. */
  async get(taskId: string, scope: TaskScope): Promise<ExternalTaskDto> {
    if (!uuidPattern.test(taskId)) throw taskNotFound(taskId);
    const [task] = await tasks.listExternalTasks(
      this.pool,
      { ids: [taskId], now: this.clock.now(), orgIds: scope === 'all' ? undefined : scope.orgIds },
      { offset: 0, limit: 1 },
    );
    if (task === undefined) throw taskNotFound(taskId);
    return externalTaskDto(task);
  }

  private async query(request: CamundaTaskQuery, scope: TaskScope): Promise<tasks.ExternalTaskQuery | null> {
    const narrowed = await this.tenants.narrow(scope, request.tenantIds);
    const ids = request.query.ids;
    // Ids that cannot be weft's select nothing (and must not reach the uuid[] cast).
    if (ids !== undefined && !ids.every((id) => uuidPattern.test(id))) return null;
    if (request.query.processInstanceId !== undefined && !uuidPattern.test(request.query.processInstanceId))
      return null;
    return {
      ...request.query,
      now: this.clock.now(),
      orgIds: narrowed === 'all' ? undefined : narrowed.orgIds,
    };
  }

  private async topicFilter(
    topic: Static<typeof FetchAndLockBody>['topics'] extends (infer T)[] | null | undefined ? T : never,
    scope: TaskScope,
  ): Promise<tasks.TopicFilter | undefined> {
    const filter: tasks.TopicFilter = {};
    if (topic.businessKey != null) filter.businessKey = topic.businessKey;
    const definitionIds = [
      ...(topic.processDefinitionId != null ? [topic.processDefinitionId] : []),
      ...(topic.processDefinitionIdIn ?? []),
    ];
    if (topic.processDefinitionId != null || topic.processDefinitionIdIn != null) {
      const valid = definitionIds.filter((id) => uuidPattern.test(id));
      filter.definitionIds = valid.length > 0 ? valid : [noDefinition];
    }
    if (topic.processDefinitionKey != null || topic.processDefinitionKeyIn != null)
      filter.definitionKeys = [
        ...(topic.processDefinitionKey != null ? [topic.processDefinitionKey] : []),
        ...(topic.processDefinitionKeyIn ?? []),
      ];
    if (topic.tenantIdIn != null) {
      const narrowed = await this.tenants.narrow(scope, topic.tenantIdIn);
      if (narrowed !== 'all') filter.orgIds = narrowed.orgIds;
    } else if (topic.withoutTenantId === true) {
      // Every weft task belongs to an org: none is without a tenant.
      filter.orgIds = [];
    }
    if (topic.processVariables != null) {
      // Plain values, as Camunda takes them here (not typed ones).
      filter.variables = topic.processVariables as tasks.TopicFilter['variables'];
    }
    return Object.keys(filter).length === 0 ? undefined : filter;
  }

  private async modelOf(definitionId: string): Promise<ProcessModel | undefined> {
    try {
      return await this.models.get(definitionId);
    } catch {
      return undefined;
    }
  }

  // A task id that cannot be weft's is unknown; weft's 404 gets Camunda's wording.
  private async onTask(taskId: string, action: () => Promise<void>): Promise<void> {
    if (!uuidPattern.test(taskId)) throw taskNotFound(taskId);
    try {
      await action();
    } catch (error) {
      if (isServiceError(error) && error.statusCode === 404) throw taskNotFound(taskId);
      throw error;
    }
  }
}

function taskNotFound(taskId: string): Error {
  return CamundaErrors.notFound(`External task with id ${taskId} does not exist`);
}

function hasEntries(value: Record<string, unknown> | null | undefined): boolean {
  return value !== null && value !== undefined && Object.keys(value).length > 0;
}
