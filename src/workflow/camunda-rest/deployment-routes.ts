import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type { CamundaDeploymentApi, CamundaDeploymentQuery } from './deployment-api.js';
import { readDeploymentForm, type DeploymentFormLimits } from './deployment-multipart.js';
import { IdParams } from './resource-schemas.js';
import { readerScopeOf } from './member-scope.js';
import { pagingParameters, QueryParameters, sortingParameters } from './query-parameters.js';

/**
 * Camunda 7's `/deployment` resource: create (multipart, as Camunda Modeler sends it; Developer of
 * the tenant's org, as weft's own deploy), list, count and get (Reader, Operator or Developer).
 */
export function registerDeploymentRoutes(
  scope: HttpServer,
  api: CamundaDeploymentApi,
  limits: DeploymentFormLimits,
): void {
  scope.post('/deployment/create', async (request) => {
    const form = await readDeploymentForm(request, limits);
    return api.create(identityOf(request), form, request);
  });

  scope.get('/deployment', async (request) =>
    api.list(deploymentQueryOf(request.query, true), readerScopeOf(identityOf(request)), request),
  );

  scope.get('/deployment/count', async (request) => ({
    count: await api.count(deploymentQueryOf(request.query, false), readerScopeOf(identityOf(request))),
  }));

  scope.get('/deployment/:id', { schema: { params: IdParams } }, async (request) =>
    api.get(request.params.id, readerScopeOf(identityOf(request)), request),
  );
}

const filterParameters = [
  'id',
  'name',
  'nameLike',
  'source',
  'tenantIdIn',
  'withoutTenantId',
  'includeDeploymentsWithoutTenantId',
  'before',
  'after',
];

// weft keeps no deployment source (every deployment's is null), and every deployment has a tenant:
// these filters then match nothing.
const noDeployment = '00000000-0000-0000-0000-000000000000';

/** Reads the query string of GET /deployment (with paging and sorting) or /count. */
export function deploymentQueryOf(raw: unknown, paged: boolean): CamundaDeploymentQuery {
  const parameters = new QueryParameters(
    raw,
    paged ? [...filterParameters, ...pagingParameters, ...sortingParameters] : filterParameters,
  );
  const matchesNone = parameters.text('source') !== undefined || parameters.set('withoutTenantId');
  parameters.flag('includeDeploymentsWithoutTenantId');
  const sort = parameters.sort(
    { id: 'id', name: 'name', deploymentTime: 'deploymentTime', tenantId: 'tenantId' } as const,
    'id',
  );
  return {
    query: {
      id: matchesNone ? noDeployment : parameters.text('id'),
      name: parameters.text('name'),
      nameLike: parameters.text('nameLike'),
      after: parameters.date('after'),
      before: parameters.date('before'),
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: { ...sort, ...parameters.paging() },
  };
}
