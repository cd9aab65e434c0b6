import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type { VariableCondition } from '../engine/store/process-instances.js';
import { CamundaErrors } from './camunda-errors.js';
import { readerScopeOf } from './member-scope.js';
import {
  deletionRefused,
  type CamundaInstanceQuery,
  type CamundaProcessInstanceApi,
} from './process-instance-api.js';
import { idFilter, pagingParameters, QueryParameters, sortingParameters } from './query-parameters.js';
import { IdParams, VariableParams } from './resource-schemas.js';

/** POST /process-instance/{id}/variables body. */
const ModifyVariablesBody = Type.Object({
  modifications: Type.Optional(
    Type.Union([Type.Record(Type.String({ maxLength: 255 }), Type.Unknown()), Type.Null()]),
  ),
  deletions: Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 }), Type.Null()]),
  ),
});

/**
 * Camunda 7's `/process-instance` resource: list, count, get, delete (cancel) and the instance's
 * variables. Reads need Reader, Operator or Developer in the instance's org; cancelling and
 * setting variables need Operator, as on weft's own API.
 */
export function registerProcessInstanceRoutes(scope: HttpServer, api: CamundaProcessInstanceApi): void {
  const readScope = (request: FastifyRequest) => readerScopeOf(identityOf(request));

  scope.get('/process-instance', async (request) =>
    api.list(instanceQueryOf(request.query, true), readScope(request), request),
  );
  scope.get('/process-instance/count', async (request) => ({
    count: await api.count(instanceQueryOf(request.query, false), readScope(request)),
  }));
  scope.get('/process-instance/:id', { schema: { params: IdParams } }, async (request) =>
    api.get(request.params.id, readScope(request), request),
  );
  scope.delete('/process-instance/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const parameters = new QueryParameters(request.query, [
      'skipCustomListeners',
      'skipIoMappings',
      'skipSubprocesses',
      'failIfNotExists',
    ]);
    // weft runs no listeners or mappings on cancellation, and always cancels called instances.
    for (const name of ['skipCustomListeners', 'skipIoMappings', 'skipSubprocesses']) parameters.flag(name);
    const failIfNotExists = parameters.flag('failIfNotExists') ?? true;
    await api.cancel(identityOf(request), request.params.id, readScope(request), failIfNotExists);
    return reply.status(204).send();
  });

  scope.get('/process-instance/:id/variables', { schema: { params: IdParams } }, async (request) => {
    readVariableOptions(request.query);
    return api.variables(request.params.id, readScope(request));
  });
  scope.post(
    '/process-instance/:id/variables',
    { schema: { params: IdParams, body: ModifyVariablesBody } },
    async (request, reply) => {
      await api.modifyVariables(identityOf(request), request.params.id, request.body, readScope(request));
      return reply.status(204).send();
    },
  );
  scope.get(
    '/process-instance/:id/variables/:name',
    { schema: { params: VariableParams } },
    async (request) => {
      readVariableOptions(request.query);
      return api.variable(request.params.id, request.params.name, readScope(request));
    },
  );
  scope.put(
    '/process-instance/:id/variables/:name',
    { schema: { params: VariableParams, body: Type.Unknown() } },
    async (request, reply) => {
      await api.putVariable(
        identityOf(request),
        request.params.id,
        request.params.name,
        request.body,
        readScope(request),
      );
      return reply.status(204).send();
    },
  );
  scope.delete('/process-instance/:id/variables/:name', { schema: { params: VariableParams } }, () => {
    throw deletionRefused();
  });
}

// `deserializeValues` changes nothing: weft keeps no serialised objects.
function readVariableOptions(raw: unknown): void {
  const parameters = new QueryParameters(raw, ['deserializeValues', 'deserializeValue']);
  parameters.flag('deserializeValues');
  parameters.flag('deserializeValue');
}

const filterParameters = [
  'processInstanceIds',
  'businessKey',
  'businessKeyLike',
  'processDefinitionId',
  'processDefinitionKey',
  'processDefinitionKeyIn',
  'superProcessInstance',
  'active',
  'suspended',
  'withIncident',
  'tenantIdIn',
  'withoutTenantId',
  'variables',
];

const operators = ['eq', 'neq', 'gt', 'gteq', 'lt', 'lteq', 'like'] as const;

/** Reads `variables=name_op_value,…` (Camunda's variable filter). */
export function variableConditionsOf(text: string | undefined): VariableCondition[] | undefined {
  if (text === undefined) return undefined;
  return text.split(',').map((entry) => {
    const [name, op, ...rest] = entry.split('_');
    if (name === undefined || name === '' || op === undefined || rest.length === 0)
      throw CamundaErrors.invalid(`Invalid variable filter '${entry}': expected name_operator_value`);
    if (!(operators as readonly string[]).includes(op))
      throw CamundaErrors.invalid(
        `Invalid variable comparator specified: ${op}; weft supports ${operators.join(', ')}`,
      );
    return { name, op: op as VariableCondition['op'], value: rest.join('_') };
  });
}

/** Reads the query string of GET /process-instance (with paging and sorting) or /count. */
export function instanceQueryOf(raw: unknown, paged: boolean): CamundaInstanceQuery {
  const parameters = new QueryParameters(
    raw,
    paged ? [...filterParameters, ...pagingParameters, ...sortingParameters] : filterParameters,
  );
  const active = parameters.set('active');
  const suspended = parameters.set('suspended');
  if (active && suspended) throw CamundaErrors.invalid('active and suspended exclude each other');
  const definitionId = parameters.text('processDefinitionId');
  const withoutTenant = parameters.set('withoutTenantId');
  const sort = parameters.sort(
    {
      instanceId: 'id',
      definitionKey: 'definitionKey',
      definitionId: 'definitionId',
      businessKey: 'businessKey',
      tenantId: 'tenantId',
    } as const,
    'id',
  );
  return {
    query: {
      ids: idFilter(parameters.list('processInstanceIds'), withoutTenant),
      businessKey: parameters.text('businessKey'),
      businessKeyLike: parameters.text('businessKeyLike'),
      definitionIds: definitionId === undefined ? undefined : [definitionId],
      definitionKeys: parameters.values('processDefinitionKey', 'processDefinitionKeyIn'),
      parentId: parameters.text('superProcessInstance'),
      open: true,
      suspended: suspended ? true : active ? false : undefined,
      withIncident: parameters.set('withIncident') || undefined,
      variables: variableConditionsOf(parameters.text('variables')),
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: { ...sort, ...parameters.paging() },
  };
}
