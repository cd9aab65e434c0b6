import type { FastifyRequest } from 'fastify';
import type { Pool } from '../../platform/database/pool.js';
import { isServiceError } from '../../platform/http/service-error.js';
import type { Identity } from '../identity/auth/identity.js';
import type { JsonValue } from '../engine/runtime/index.js';
import {
  countQueriedInstances,
  queryInstances,
  type InstanceQuery,
  type InstanceQueryPage,
  type QueriedInstance,
} from '../engine/store/process-instances.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import type { InstanceService } from '../instances/instance-service.js';
import { CamundaErrors } from './camunda-errors.js';
import { processInstanceDto, type ProcessInstanceDto } from './process-instance-dto.js';
import { isWeftId } from './query-parameters.js';
import type { Tenants } from './tenants.js';
import {
  decodeVariable,
  decodeVariables,
  encodeVariable,
  encodeVariables,
  type TypedValue,
  type TypedVariables,
} from './variables.js';

/** A page of GET /process-instance (or /history/process-instance) and the filters of it and of /count. */
export interface CamundaInstanceQuery {
  query: Omit<InstanceQuery, 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  page: InstanceQueryPage;
}

/**
 * Camunda 7's process-instance resource over weft's instances: reads need Reader, Operator or
 * Developer in the instance's org; cancelling and setting variables need Operator, through weft's
 * instance service. Camunda's runtime resource shows running instances only: an ended instance is
 * not found here (it is in /history/process-instance).
 */
export class CamundaProcessInstanceApi {
  constructor(
    private readonly pool: Pool,
    private readonly instances: InstanceService,
    private readonly tenants: Tenants,
  ) {}

  /** GET /process-instance. */
  async list(
    request: CamundaInstanceQuery,
    scope: TaskScope,
    http: FastifyRequest,
  ): Promise<ProcessInstanceDto[]> {
    const rows = await this.query(request, scope);
    return rows.map((row) => processInstanceDto(row, http));
  }

  /** The rows of a query (running or not, as the query says): what the lists show. */
  async query(request: CamundaInstanceQuery, scope: TaskScope): Promise<QueriedInstance[]> {
    const query = await this.filter(request, scope);
    return query === null ? [] : queryInstances(this.pool, query, request.page);
  }

  /** GET /process-instance/count (and the history's). */
  async count(request: CamundaInstanceQuery, scope: TaskScope): Promise<number> {
    const query = await this.filter(request, scope);
    return query === null ? 0 : countQueriedInstances(this.pool, query);
  }

  /** GET /process-instance/{id}. */
  async get(id: string, scope: TaskScope, http: FastifyRequest): Promise<ProcessInstanceDto> {
    return processInstanceDto(await this.find(id, scope), http);
  }

  /**
   * DELETE /process-instance/{id}: cancels it. With `failIfNotExists: false` an unknown instance is
   * no error.
   */
  async cancel(identity: Identity, id: string, scope: TaskScope, failIfNotExists: boolean): Promise<void> {
    try {
      await this.find(id, scope);
    } catch (error) {
      if (!failIfNotExists && isServiceError(error) && error.statusCode === 404) return;
      throw error;
    }
    await this.onInstance(id, () => this.instances.cancel(identity, id));
  }

  /** GET /process-instance/{id}/variables: the root scope's variables, typed. */
  async variables(id: string, scope: TaskScope): Promise<TypedVariables> {
    return encodeVariables((await this.find(id, scope)).variables);
  }

  /** GET /process-instance/{id}/variables/{name}. */
  async variable(id: string, name: string, scope: TaskScope): Promise<TypedValue> {
    const instance = await this.find(id, scope);
    if (!Object.hasOwn(instance.variables, name)) throw variableNotFound(id, name);
    return encodeVariable(instance.variables[name] as JsonValue);
  }

  /** PUT /process-instance/{id}/variables/{name}: sets one variable on the root scope. */
  async putVariable(
    identity: Identity,
    id: string,
    name: string,
    body: unknown,
    scope: TaskScope,
  ): Promise<void> {
    const value = decodeVariable(name, body);
    await this.find(id, scope);
    await this.onInstance(id, () => this.instances.setVariables(identity, id, { [name]: value }));
  }

  /**
   * POST /process-instance/{id}/variables: `modifications` are set; `deletions` are refused (weft
   * cannot remove a variable from an instance; set it to null instead).
   */
  async modifyVariables(
    identity: Identity,
    id: string,
    body: { modifications?: unknown; deletions?: unknown },
    scope: TaskScope,
  ): Promise<void> {
    if (Array.isArray(body.deletions) && body.deletions.length > 0) throw deletionRefused();
    const variables = decodeVariables(body.modifications, 'modifications');
    await this.find(id, scope);
    if (Object.keys(variables).length === 0) return;
    await this.onInstance(id, () => this.instances.setVariables(identity, id, variables));
  }

  /** The running instance, if the caller may see it; 404 (Camunda's wording) otherwise. */
  private async find(id: string, scope: TaskScope): Promise<QueriedInstance> {
    if (!isWeftId(id)) throw instanceNotFound(id);
    const [instance] = await queryInstances(
      this.pool,
      { orgIds: scope === 'all' ? undefined : scope.orgIds, ids: [id], open: true },
      { sortBy: 'id', descending: false, offset: 0, limit: 1 },
    );
    if (instance === undefined) throw instanceNotFound(id);
    return instance;
  }

  private async filter(request: CamundaInstanceQuery, scope: TaskScope): Promise<InstanceQuery | null> {
    const narrowed = await this.tenants.narrow(scope, request.tenantIds);
    const { ids, definitionIds, parentId } = request.query;
    // Ids that cannot be weft's select nothing (and must not reach the uuid casts).
    if (ids !== undefined && !ids.every(isWeftId)) return null;
    if (definitionIds !== undefined && !definitionIds.every(isWeftId)) return null;
    if (parentId !== undefined && !isWeftId(parentId)) return null;
    return { ...request.query, orgIds: narrowed === 'all' ? undefined : narrowed.orgIds };
  }

  // weft's 404 for an instance gets Camunda's wording.
  private async onInstance(id: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      if (isServiceError(error) && error.statusCode === 404) throw instanceNotFound(id);
      throw error;
    }
  }
}

function instanceNotFound(id: string): Error {
  return CamundaErrors.notFound(`Process instance with id ${id} does not exist`);
}

function variableNotFound(id: string, name: string): Error {
  return CamundaErrors.notFound(
    `process instance variable with name ${name} does not exist or is null (instance ${id})`,
  );
}

/** The answer to a variable deletion (docs/workflow/camunda7.md, Process instances). */
export function deletionRefused(): Error {
  return CamundaErrors.invalid(
    'Deleting process instance variables is not supported by weft; set the variable to null instead',
  );
}
