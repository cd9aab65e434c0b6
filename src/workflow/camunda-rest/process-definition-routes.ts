import type { FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type {
  CamundaDefinitionQuery,
  CamundaProcessDefinitionApi,
  DefinitionRef,
} from './process-definition-api.js';
import { HistoryTimeToLiveBody, StartBody } from './process-definition-schemas.js';
import { readerScopeOf } from './member-scope.js';
import { idFilter, pagingParameters, QueryParameters, sortingParameters } from './query-parameters.js';
import { CamundaErrors } from './camunda-errors.js';
import { IdParams, KeyParams, KeyTenantParams } from './resource-schemas.js';

/**
 * Camunda 7's `/process-definition` resource: list, count, get by id or key (in a tenant), the
 * XML, the start form, starts and the history time to live. Reads need Reader, Operator or
 * Developer in the definition's org; starts need Operator and a new history time to live
 * Developer, as on weft's own API.
 */
export function registerProcessDefinitionRoutes(scope: HttpServer, api: CamundaProcessDefinitionApi): void {
  const readScope = (request: FastifyRequest) => readerScopeOf(identityOf(request));

  scope.get('/process-definition', async (request) =>
    api.list(definitionQueryOf(request.query, true), readScope(request)),
  );
  scope.get('/process-definition/count', async (request) => ({
    count: await api.count(definitionQueryOf(request.query, false), readScope(request)),
  }));

  // Each way of naming a definition: by id, by key, by key in a tenant.
  const refs: [
    string,
    (params: Record<string, string>) => DefinitionRef,
    typeof IdParams | typeof KeyParams | typeof KeyTenantParams,
  ][] = [
    ['/process-definition/:id', (params) => ({ id: params.id ?? '' }), IdParams],
    ['/process-definition/key/:key', (params) => ({ key: params.key ?? '' }), KeyParams],
    [
      '/process-definition/key/:key/tenant-id/:tenantId',
      (params) => ({ key: params.key ?? '', tenantId: params.tenantId ?? '' }),
      KeyTenantParams,
    ],
  ];
  for (const [path, refOf, params] of refs) {
    scope.get(path, { schema: { params } }, async (request) =>
      api.get(refOf(request.params as Record<string, string>), readScope(request)),
    );
    scope.get(`${path}/xml`, { schema: { params } }, async (request) =>
      api.xml(refOf(request.params as Record<string, string>), readScope(request)),
    );
    scope.get(`${path}/startForm`, { schema: { params } }, async (request) =>
      api.startForm(refOf(request.params as Record<string, string>), readScope(request)),
    );
    scope.get(`${path}/deployed-start-form`, { schema: { params } }, async (request) =>
      api.deployedStartForm(refOf(request.params as Record<string, string>), readScope(request)),
    );
    scope.post(`${path}/start`, { schema: { params, body: StartBody } }, async (request) =>
      api.start(
        identityOf(request),
        refOf(request.params as Record<string, string>),
        request.body,
        readScope(request),
        request,
      ),
    );
    scope.put(
      `${path}/history-time-to-live`,
      { schema: { params, body: HistoryTimeToLiveBody } },
      async (request, reply) => {
        await api.setHistoryTimeToLive(
          identityOf(request),
          refOf(request.params),
          request.body.historyTimeToLive ?? null,
          readScope(request),
        );
        return reply.status(204).send();
      },
    );
  }
}

const filterParameters = [
  'processDefinitionId',
  'processDefinitionIdIn',
  'key',
  'keysIn',
  'keyLike',
  'name',
  'nameLike',
  'version',
  'latestVersion',
  'deploymentId',
  'tenantIdIn',
  'withoutTenantId',
  'includeProcessDefinitionsWithoutTenantId',
  'active',
  'suspended',
];

/** Reads the query string of GET /process-definition (with paging and sorting) or /count. */
export function definitionQueryOf(raw: unknown, paged: boolean): CamundaDefinitionQuery {
  const parameters = new QueryParameters(
    raw,
    paged ? [...filterParameters, ...pagingParameters, ...sortingParameters] : filterParameters,
  );
  const active = parameters.set('active');
  const suspended = parameters.set('suspended');
  if (active && suspended) throw CamundaErrors.invalid('active and suspended exclude each other');
  parameters.flag('includeProcessDefinitionsWithoutTenantId');
  // Every weft definition has a tenant.
  const withoutTenant = parameters.set('withoutTenantId');
  const sort = parameters.sort(
    {
      category: 'id',
      id: 'id',
      key: 'key',
      name: 'name',
      version: 'version',
      deploymentId: 'deploymentId',
      tenantId: 'tenantId',
    } as const,
    'id',
  );
  return {
    query: {
      ids: idFilter(parameters.values('processDefinitionId', 'processDefinitionIdIn'), withoutTenant),
      keys: parameters.values('key', 'keysIn'),
      keyLike: parameters.text('keyLike'),
      name: parameters.text('name'),
      nameLike: parameters.text('nameLike'),
      version: parameters.whole('version'),
      latestVersion: parameters.set('latestVersion') || undefined,
      deploymentId: parameters.text('deploymentId'),
      suspended: suspended ? true : active ? false : undefined,
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: { ...sort, ...parameters.paging() },
  };
}
