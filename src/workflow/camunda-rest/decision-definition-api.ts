import type { Pool } from '../../platform/database/pool.js';
import * as decisions from '../decisions/decision-repository.js';
import type { DecisionService } from '../decisions/decision-service.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';
import { decisionDefinitionDto, type DecisionDefinitionDto } from './decision-definition-dto.js';
import { isWeftId, type Page } from './query-parameters.js';
import { roleScopeOf } from './role-scope.js';
import type { Tenants } from './tenants.js';
import { decodeVariables, encodeVariables, type TypedVariables } from './variables.js';

/** The roles that may read an org's decisions (weft's GET /api/v1/decisions). */
const decisionReaderRoles: readonly OrgRole[] = ['Developer', 'Operator', 'Reader', 'Worker'];

/** A page of GET /decision-definition and the filters of it and of /count. */
export interface CamundaDecisionQuery {
  query: Omit<decisions.DecisionVersionQuery, 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  page: Page;
  order: { by: decisions.DecisionVersionOrder; descending: boolean } | undefined;
}

/** How a request names a decision version: by id, or by key (latest version) and maybe tenant. */
export type DecisionReference = { id: string } | { key: string; tenantId?: string | undefined };

/**
 * Camunda 7's decision-definition API over weft's decisions: lists and reads need any role in the
 * org, evaluation Developer or Operator (weft's DecisionService decides it). A decision of an org
 * the caller may not read is unknown (404).
 */
export class CamundaDecisionApi {
  constructor(
    private readonly pool: Pool,
    private readonly service: DecisionService,
    private readonly tenants: Tenants,
  ) {}

  /** GET /decision-definition. */
  async list(request: CamundaDecisionQuery, identity: Identity): Promise<DecisionDefinitionDto[]> {
    const query = await this.query(request, identity);
    if (query === null) return [];
    const rows = await decisions.queryDecisionVersions(this.pool, query, {
      offset: request.page.firstResult,
      limit: request.page.maxResults,
      order: request.order,
    });
    return rows.map(decisionDefinitionDto);
  }

  /** GET /decision-definition/count. */
  async count(request: CamundaDecisionQuery, identity: Identity): Promise<number> {
    const query = await this.query(request, identity);
    return query === null ? 0 : decisions.countDecisionVersions(this.pool, query);
  }

  /** GET /decision-definition/{id}, /key/{key}, /key/{key}/tenant-id/{t}. */
  async get(reference: DecisionReference, identity: Identity): Promise<DecisionDefinitionDto> {
    return decisionDefinitionDto(await this.resolve(reference, identity));
  }

  /** GET …/xml: the DMN file the version was deployed in. */
  async xml(reference: DecisionReference, identity: Identity): Promise<{ id: string; dmnXml: string }> {
    const version = await this.resolve(reference, identity);
    const found = await decisions.findVersionXml(
      this.pool,
      version.org_id,
      version.decision_key,
      version.version,
    );
    if (found === null) throw notFound(reference);
    return { id: version.id, dmnXml: found.xml };
  }

  /** POST …/evaluate: one entry per result row, each output a typed variable. */
  async evaluate(
    reference: DecisionReference,
    variables: unknown,
    identity: Identity,
  ): Promise<TypedVariables[]> {
    const input = decodeVariables(variables);
    const version = await this.resolve(reference, identity);
    const evaluation = await this.service.evaluateAsCaller(
      identity,
      version.org_id,
      version.decision_key,
      version.version,
      input,
    );
    return evaluation.resultList.map((row) => encodeVariables(row as Parameters<typeof encodeVariables>[0]));
  }

  // The version a request names among the orgs the caller may read: by id; by key, the latest
  // version in the named tenant, or in the one org of the caller's that has the key.
  private async resolve(
    reference: DecisionReference,
    identity: Identity,
  ): Promise<decisions.DecisionVersionView> {
    const scope = readScope(identity);
    const orgIds = scope === 'all' ? undefined : scope.orgIds;
    if ('id' in reference) {
      if (!isWeftId(reference.id)) throw notFound(reference);
      const [found] = await decisions.queryDecisionVersions(
        this.pool,
        { ids: [reference.id], orgIds },
        { offset: 0, limit: 1 },
      );
      if (found === undefined) throw notFound(reference);
      return found;
    }
    const narrowed =
      reference.tenantId === undefined ? scope : await this.tenants.narrow(scope, [reference.tenantId]);
    const found = await decisions.queryDecisionVersions(
      this.pool,
      { key: reference.key, latestVersion: true, orgIds: narrowed === 'all' ? undefined : narrowed.orgIds },
      { offset: 0, limit: 2 },
    );
    if (found.length > 1)
      throw CamundaErrors.invalid(
        `Decision definition key '${reference.key}' is deployed in several tenants the caller can read: use /decision-definition/key/${reference.key}/tenant-id/{tenant-id}`,
      );
    const [only] = found;
    if (only === undefined) throw notFound(reference);
    return only;
  }

  private async query(
    request: CamundaDecisionQuery,
    identity: Identity,
  ): Promise<decisions.DecisionVersionQuery | null> {
    const scope = await this.tenants.narrow(readScope(identity), request.tenantIds);
    const { ids, deploymentId } = request.query;
    if (ids !== undefined && !ids.every(isWeftId)) return null;
    if (deploymentId !== undefined && !isWeftId(deploymentId)) return null;
    return { ...request.query, orgIds: scope === 'all' ? undefined : scope.orgIds };
  }
}

// Without any reading role anywhere, a caller sees no decision (rather than a 403 on a list).
function readScope(identity: Identity): TaskScope {
  try {
    return roleScopeOf(identity, decisionReaderRoles);
  } catch {
    return { orgIds: [] };
  }
}

function notFound(reference: DecisionReference): Error {
  if ('id' in reference)
    return CamundaErrors.notFound(`No matching decision definition with id ${reference.id}`);
  return CamundaErrors.notFound(
    reference.tenantId === undefined
      ? `No matching decision definition with key '${reference.key}'`
      : `No matching decision definition with key '${reference.key}' and tenant-id '${reference.tenantId}'`,
  );
}
