import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Pool } from '../../platform/database/pool.js';
import type { DeploymentService } from '../deployments/deployment-service.js';
import type { Identity } from '../identity/auth/identity.js';
import {
  countDefinitions,
  findDefinition,
  queryDefinitions,
  type DefinitionPage,
  type DefinitionQuery,
  type ListedDefinition,
} from '../engine/store/process-definitions.js';
import { findInstance } from '../engine/store/process-instances.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import type { InstanceService } from '../instances/instance-service.js';
import { CamundaErrors } from './camunda-errors.js';
import { processDefinitionDto, type ProcessDefinitionDto } from './process-definition-dto.js';
import type { StartBody } from './process-definition-schemas.js';
import {
  processInstanceWithVariablesDto,
  type ProcessInstanceWithVariablesDto,
} from './process-instance-dto.js';
import { isWeftId } from './query-parameters.js';
import type { Tenants } from './tenants.js';
import type { ModelCache } from '../deployments/model-cache.js';
import type { FormService } from '../forms/form-service.js';
import type { StartEventModel } from '../engine/model/index.js';
import { deployedFormOf, formDto, type FormDto } from './form-dto.js';
import { decodeVariables } from './variables.js';

/** A page of GET /process-definition and the filters of it and of /count. */
export interface CamundaDefinitionQuery {
  query: Omit<DefinitionQuery, 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  page: DefinitionPage;
}

/** Which definition a request names: by id, or the latest version of a key (in a tenant). */
export type DefinitionRef = { id: string } | { key: string; tenantId?: string | undefined };

/**
 * Camunda 7's process-definition resource over weft's deployed versions, its instance service
 * (starts need the Operator role in the definition's org, as weft's own start) and its deployment
 * service (a new history time to live needs Developer, as weft's own PATCH).
 */
export class CamundaProcessDefinitionApi {
  constructor(
    private readonly pool: Pool,
    private readonly instances: InstanceService,
    private readonly tenants: Tenants,
    private readonly models: ModelCache,
    private readonly forms: FormService,
    private readonly deployments: DeploymentService,
  ) {}

  /** GET /process-definition. */
  async list(request: CamundaDefinitionQuery, scope: TaskScope): Promise<ProcessDefinitionDto[]> {
    const query = await this.query(request, scope);
    if (query === null) return [];
    const rows = await queryDefinitions(this.pool, query, request.page);
    return rows.map((row) => processDefinitionDto(row));
  }

  /** GET /process-definition/count. */
  async count(request: CamundaDefinitionQuery, scope: TaskScope): Promise<number> {
    const query = await this.query(request, scope);
    return query === null ? 0 : countDefinitions(this.pool, query);
  }

  /** GET /process-definition/{id}, /key/{key}, /key/{key}/tenant-id/{t}. */
  async get(ref: DefinitionRef, scope: TaskScope): Promise<ProcessDefinitionDto> {
    return processDefinitionDto(await this.resolve(ref, scope));
  }

  /** GET …/xml: `{id, bpmn20Xml}`. */
  async xml(ref: DefinitionRef, scope: TaskScope): Promise<{ id: string; bpmn20Xml: string }> {
    const definition = await this.resolve(ref, scope);
    const stored = await findDefinition(this.pool, definition.id);
    if (stored === null) throw notFound(ref);
    return { id: definition.id, bpmn20Xml: stored.xml };
  }

  /**
   * POST …/start: an instance of the definition (by key: the latest version, which must be able to
   * start, as in Camunda). The caller must see the definition (Reader or more) and be an Operator
   * of its org to start it.
   */
  async start(
    identity: Identity,
    ref: DefinitionRef,
    body: Static<typeof StartBody>,
    scope: TaskScope,
    http: FastifyRequest,
  ): Promise<ProcessInstanceWithVariablesDto> {
    if (body.startInstructions != null && body.startInstructions.length > 0)
      throw CamundaErrors.invalid(
        'startInstructions are not supported by weft: an instance starts at its start event',
      );
    for (const flag of ['skipCustomListeners', 'skipIoMappings'] as const) {
      if (body[flag] === true)
        throw CamundaErrors.invalid(`${flag} is not supported by weft when starting an instance`);
    }
    if (body.caseInstanceId != null)
      throw CamundaErrors.invalid('weft has no case instances: caseInstanceId is not supported');
    const variables = decodeVariables(body.variables);
    const definition = await this.resolve(ref, scope);
    const started = await this.instances.start(identity, {
      org_id: definition.org_id,
      definition_id: definition.id,
      ...(body.businessKey == null ? {} : { business_key: body.businessKey }),
      variables,
    });
    // The start ran until every token waits; its record has the variables at that point.
    const instance = (await findInstance(this.pool, started.id)) ?? started;
    return processInstanceWithVariablesDto(
      { ...instance, tenant_id: definition.tenant_id },
      http,
      body.withVariablesInReturn === true,
    );
  }

  /** GET …/startForm: the form key and `camunda:formRef` of the process's none start event. */
  async startForm(ref: DefinitionRef, scope: TaskScope): Promise<FormDto> {
    const definition = await this.resolve(ref, scope);
    const start = await this.startEvent(definition.id);
    return formDto(start?.formKey, start?.formRef);
  }

  /** GET …/deployed-start-form: the form-js JSON of the start form, found as a task's form is. */
  async deployedStartForm(ref: DefinitionRef, scope: TaskScope): Promise<Record<string, unknown>> {
    const definition = await this.resolve(ref, scope);
    const start = await this.startEvent(definition.id);
    const outcome = await this.forms.resolve(definition.id, start?.formKey ?? null, start?.formRef ?? null);
    return deployedFormOf(outcome, () => Promise.resolve(definition.deployment_id));
  }

  // The start event whose form starts the process: its none start event (Camunda's initial one).
  private async startEvent(definitionId: string): Promise<StartEventModel | undefined> {
    const model = await this.models.get(definitionId);
    const id = model.startEventIds.none[0];
    const element = id === undefined ? undefined : model.elements[id];
    return element?.type === 'startEvent' ? element : undefined;
  }

  /**
   * PUT …/history-time-to-live: days the history of the version's instances is kept after they end
   * (by key: the latest version's); null: weft's global retention. The caller must see the
   * definition and be a Developer of its org (Camunda: UPDATE on the process definition).
   */
  async setHistoryTimeToLive(
    identity: Identity,
    ref: DefinitionRef,
    days: number | null,
    scope: TaskScope,
  ): Promise<void> {
    const definition = await this.resolve(ref, scope);
    await this.deployments.setHistoryTimeToLive(identity, definition.id, days);
  }

  /** The definition a request names, if the caller may see it; 404 (Camunda's wording) otherwise. */
  async resolve(ref: DefinitionRef, scope: TaskScope): Promise<ListedDefinition> {
    const orgIds = scope === 'all' ? undefined : scope.orgIds;
    if ('id' in ref) {
      if (!isWeftId(ref.id)) throw notFound(ref);
      const [found] = await queryDefinitions(this.pool, { orgIds, ids: [ref.id] }, firstOf);
      if (found === undefined) throw notFound(ref);
      return found;
    }
    let narrowed = orgIds;
    if (ref.tenantId !== undefined) {
      const tenants = await this.tenants.narrow(scope, [ref.tenantId]).catch(() => null);
      if (tenants === null) throw notFound(ref);
      narrowed = tenants === 'all' ? undefined : tenants.orgIds;
    }
    const latest = await queryDefinitions(
      this.pool,
      { orgIds: narrowed, keys: [ref.key], latestVersion: true },
      { ...firstOf, limit: 2, sortBy: 'tenantId' },
    );
    if (latest.length > 1)
      throw CamundaErrors.invalid(
        `Process definitions with key '${ref.key}' exist in several tenants (${latest
          .map((definition) => definition.tenant_id)
          .join(', ')}): name one with /key/${ref.key}/tenant-id/{tenant-id}`,
      );
    const [found] = latest;
    if (found === undefined) throw notFound(ref);
    return found;
  }

  private async query(request: CamundaDefinitionQuery, scope: TaskScope): Promise<DefinitionQuery | null> {
    const narrowed = await this.tenants.narrow(scope, request.tenantIds);
    const { ids, deploymentId } = request.query;
    // Ids that cannot be weft's select nothing (and must not reach the uuid casts).
    if (ids !== undefined && !ids.every(isWeftId)) return null;
    if (deploymentId !== undefined && !isWeftId(deploymentId)) return null;
    return { ...request.query, orgIds: narrowed === 'all' ? undefined : narrowed.orgIds };
  }
}

const firstOf: DefinitionPage = { sortBy: 'id', descending: false, offset: 0, limit: 1 };

function notFound(ref: DefinitionRef): Error {
  if ('id' in ref) return CamundaErrors.notFound(`No matching definition with id ${ref.id}`);
  return CamundaErrors.notFound(
    ref.tenantId === undefined
      ? `No matching process definition with key: ${ref.key} and no tenant-id`
      : `No matching process definition with key: ${ref.key} and tenant-id: ${ref.tenantId}`,
  );
}
