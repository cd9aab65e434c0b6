import type { Pool } from '../../platform/database/pool.js';
import * as incidents from '../engine/store/incidents.js';
import { listExternalTasks } from '../engine/store/external-tasks.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import type { InstanceService } from '../instances/instance-service.js';
import type { Clock } from '../../platform/clock.js';
import { CamundaErrors } from './camunda-errors.js';
import { incidentDto, type IncidentDto } from './incident-dto.js';
import { isWeftId, type Page } from './query-parameters.js';
import { roleScopeOf } from './role-scope.js';
import type { Tenants } from './tenants.js';

/** The roles that may read an org's incidents (weft's GET /api/v1/incidents). */
const incidentReaderRoles: readonly OrgRole[] = ['Developer', 'Operator', 'Reader'];

/** A page of GET /incident and the filters of it and of /count. */
export interface CamundaIncidentRequest {
  query: Omit<incidents.CamundaIncidentQuery, 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  page: Page;
  order: { by: incidents.CamundaIncidentOrder; descending: boolean } | undefined;
}

/**
 * Camunda 7's incidents over weft's: the open incidents (readers of the org, as weft's own list),
 * and their resolution by setting retries (an Operator, as weft's own retry): `PUT
 * /external-task/{id}/retries` for a `failedExternalTask`, `PUT /job/{id}/retries` for a
 * `failedJob`, the id being the incident's `configuration`.
 */
export class CamundaIncidentApi {
  constructor(
    private readonly pool: Pool,
    private readonly instances: InstanceService,
    private readonly tenants: Tenants,
    private readonly clock: Clock,
  ) {}

  /** GET /incident. */
  async list(request: CamundaIncidentRequest, identity: Identity): Promise<IncidentDto[]> {
    const query = await this.query(request, identity);
    if (query === null) return [];
    const rows = await incidents.queryCamundaIncidents(this.pool, query, {
      offset: request.page.firstResult,
      limit: request.page.maxResults,
      order: request.order,
    });
    return rows.map(incidentDto);
  }

  /** GET /incident/count. */
  async count(request: CamundaIncidentRequest, identity: Identity): Promise<number> {
    const query = await this.query(request, identity);
    return query === null ? 0 : incidents.countCamundaIncidents(this.pool, query);
  }

  /**
   * PUT /external-task/{id}/retries and /job/{id}/retries: resumes the open incident of that type
   * whose configuration is `id`. weft's retry gives the element its work again with the retries its
   * model sets, so `retries` must be at least 1; 0 (raising an incident by hand) is refused.
   */
  async setRetries(
    type: 'failedExternalTask' | 'failedJob',
    id: string,
    retries: number,
    identity: Identity,
  ): Promise<void> {
    const what = type === 'failedExternalTask' ? 'External task' : 'Job';
    if (retries < 1)
      throw CamundaErrors.invalid(
        'weft sets retries only to resolve an incident: retries must be at least 1 (the task then gets the retries its model sets)',
      );
    const missing = CamundaErrors.notFound(`${what} with id ${id} does not exist`);
    if (!isWeftId(id)) throw missing;
    const scope = readScope(identity);
    const orgIds = scope === 'all' ? undefined : scope.orgIds;
    const [incident] = await incidents.queryCamundaIncidents(
      this.pool,
      { configuration: id, type, orgIds },
      { offset: 0, limit: 1 },
    );
    if (incident === undefined) {
      if (type === 'failedExternalTask' && (await this.openExternalTask(id, orgIds)))
        throw CamundaErrors.invalid(
          `External task ${id} has no incident: weft changes the retries of an external task only to resolve its incident`,
        );
      throw missing;
    }
    await this.instances.retryIncident(identity, incident.process_instance_id, incident.id);
  }

  private async openExternalTask(id: string, orgIds: readonly string[] | undefined): Promise<boolean> {
    const found = await listExternalTasks(
      this.pool,
      { ids: [id], orgIds, now: this.clock.now() },
      { offset: 0, limit: 1 },
    );
    return found.length > 0;
  }

  private async query(
    request: CamundaIncidentRequest,
    identity: Identity,
  ): Promise<incidents.CamundaIncidentQuery | null> {
    const scope = await this.tenants.narrow(readScope(identity), request.tenantIds);
    const { ids, definitionId, processInstanceId } = request.query;
    if (ids !== undefined && !ids.every(isWeftId)) return null;
    if (definitionId !== undefined && !isWeftId(definitionId)) return null;
    if (processInstanceId !== undefined && !isWeftId(processInstanceId)) return null;
    return { ...request.query, orgIds: scope === 'all' ? undefined : scope.orgIds };
  }
}

// Incidents are found among the orgs the caller may read (weft's own list's roles, and the
// Operator who retries); without any, a caller sees none.
function readScope(identity: Identity): TaskScope {
  try {
    return roleScopeOf(identity, incidentReaderRoles);
  } catch {
    return { orgIds: [] };
  }
}
