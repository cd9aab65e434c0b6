import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type {
  CamundaDecisionApi,
  CamundaDecisionQuery,
  DecisionReference,
} from './decision-definition-api.js';
import { idFilter, pagingParameters, QueryParameters } from './query-parameters.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });
const KeyParams = Type.Object({ key: Type.String({ maxLength: 500 }) });
const KeyTenantParams = Type.Object({
  key: Type.String({ maxLength: 500 }),
  tenantId: Type.String({ maxLength: 255 }),
});
/** POST …/evaluate body: the typed input variables. */
const EvaluateBody = Type.Optional(
  Type.Union([
    Type.Object({
      variables: Type.Optional(
        Type.Union([Type.Record(Type.String({ maxLength: 255 }), Type.Unknown()), Type.Null()]),
      ),
    }),
    Type.Null(),
  ]),
);

/**
 * Camunda 7's `/decision-definition` resource over weft's decisions: list, count, read by id or key
 * (and tenant), the DMN XML, and evaluation (docs/workflow/camunda7.md, Decisions).
 */
export function registerDecisionDefinitionRoutes(scope: HttpServer, api: CamundaDecisionApi): void {
  scope.get('/decision-definition', async (request) =>
    api.list(decisionQueryOf(request.query, true), identityOf(request)),
  );
  scope.get('/decision-definition/count', async (request) => ({
    count: await api.count(decisionQueryOf(request.query, false), identityOf(request)),
  }));

  // The three ways of naming a version, each with its read, XML and evaluation.
  const routes: {
    path: string;
    params: typeof IdParams | typeof KeyParams | typeof KeyTenantParams;
    reference: (params: Record<string, string>) => DecisionReference;
  }[] = [
    {
      path: '/decision-definition/key/:key/tenant-id/:tenantId',
      params: KeyTenantParams,
      reference: (p) => ({ key: p.key ?? '', tenantId: p.tenantId }),
    },
    { path: '/decision-definition/key/:key', params: KeyParams, reference: (p) => ({ key: p.key ?? '' }) },
    { path: '/decision-definition/:id', params: IdParams, reference: (p) => ({ id: p.id ?? '' }) },
  ];
  for (const route of routes) {
    const reference = (params: unknown) => route.reference(params as Record<string, string>);
    scope.get(route.path, { schema: { params: route.params } }, async (request) =>
      api.get(reference(request.params), identityOf(request)),
    );
    scope.get(`${route.path}/xml`, { schema: { params: route.params } }, async (request) =>
      api.xml(reference(request.params), identityOf(request)),
    );
    scope.post(
      `${route.path}/evaluate`,
      { schema: { params: route.params, body: EvaluateBody } },
      async (request) =>
        api.evaluate(reference(request.params), request.body?.variables, identityOf(request)),
    );
  }
}

const filterParameters = [
  'decisionDefinitionId',
  'decisionDefinitionIdIn',
  'key',
  'keyLike',
  'name',
  'nameLike',
  'version',
  'latestVersion',
  'deploymentId',
  'tenantIdIn',
  'withoutTenantId',
];
const sortFields = ['key', 'id', 'name', 'version', 'tenantId', 'deploymentId'] as const;

/** Reads the query string of GET /decision-definition (with paging and sorting) or /count. */
export function decisionQueryOf(raw: unknown, paged: boolean): CamundaDecisionQuery {
  const allowed = paged
    ? [...filterParameters, ...pagingParameters, 'sortBy', 'sortOrder']
    : filterParameters;
  const parameters = new QueryParameters(raw, allowed);
  const versionText = parameters.text('version');
  const version = versionText === undefined ? undefined : parameters.whole('version');
  const withoutTenant = parameters.set('withoutTenantId');
  const sorting = paged ? parameters.sorting(sortFields) : undefined;
  return {
    query: {
      ids: idFilter(parameters.values('decisionDefinitionId', 'decisionDefinitionIdIn'), withoutTenant),
      key: parameters.text('key'),
      keyLike: parameters.text('keyLike'),
      name: parameters.text('name'),
      nameLike: parameters.text('nameLike'),
      version,
      latestVersion: parameters.set('latestVersion') ? true : undefined,
      deploymentId: parameters.text('deploymentId'),
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: paged ? parameters.page() : { firstResult: 0, maxResults: 0 },
    order: sorting === undefined ? undefined : { by: sorting.by, descending: sorting.descending },
  };
}
