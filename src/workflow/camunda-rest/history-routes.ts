import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type { InstanceQuery } from '../engine/store/process-instances.js';
import { CamundaErrors } from './camunda-errors.js';
import { historicProcessInstanceDto, statesOf, type HistoricState } from './history-dto.js';
import { readerScopeOf } from './member-scope.js';
import type { CamundaInstanceQuery, CamundaProcessInstanceApi } from './process-instance-api.js';
import { variableConditionsOf } from './process-instance-routes.js';
import { idFilter, pagingParameters, QueryParameters, sortingParameters } from './query-parameters.js';

/**
 * Camunda 7's `/history/process-instance` list and count: weft's instances, running and ended, as
 * long as weft keeps them (WORKFLOW_HISTORY_RETENTION_DAYS). Reader, Operator or Developer.
 */
export function registerHistoryRoutes(scope: HttpServer, api: CamundaProcessInstanceApi): void {
  scope.get('/history/process-instance', async (request) => {
    const rows = await api.query(historyQueryOf(request.query, true), readerScopeOf(identityOf(request)));
    return rows.map(historicProcessInstanceDto);
  });
  scope.get('/history/process-instance/count', async (request) => ({
    count: await api.count(historyQueryOf(request.query, false), readerScopeOf(identityOf(request))),
  }));
}

const filterParameters = [
  'processInstanceId',
  'processInstanceIds',
  'processInstanceBusinessKey',
  'processInstanceBusinessKeyLike',
  'processDefinitionId',
  'processDefinitionKey',
  'processDefinitionKeyIn',
  'superProcessInstanceId',
  'finished',
  'unfinished',
  'withIncidents',
  'state',
  'active',
  'suspended',
  'completed',
  'externallyTerminated',
  'internallyTerminated',
  'startedAfter',
  'startedBefore',
  'finishedAfter',
  'finishedBefore',
  'tenantIdIn',
  'withoutTenantId',
  'variables',
];

const stateFlags: [string, HistoricState][] = [
  ['active', 'ACTIVE'],
  ['suspended', 'SUSPENDED'],
  ['completed', 'COMPLETED'],
  ['externallyTerminated', 'EXTERNALLY_TERMINATED'],
  ['internallyTerminated', 'INTERNALLY_TERMINATED'],
];

/** Reads the query string of GET /history/process-instance (with paging and sorting) or /count. */
export function historyQueryOf(raw: unknown, paged: boolean): CamundaInstanceQuery {
  const parameters = new QueryParameters(
    raw,
    paged ? [...filterParameters, ...pagingParameters, ...sortingParameters] : filterParameters,
  );
  const finished = parameters.set('finished');
  const unfinished = parameters.set('unfinished');
  if (finished && unfinished) throw CamundaErrors.invalid('finished and unfinished exclude each other');
  const wanted: HistoricState[] = stateFlags
    .filter(([name]) => parameters.set(name))
    .map(([, state]) => state);
  const state = parameters.text('state');
  if (state !== undefined) {
    const known = stateFlags.map(([, name]) => name);
    if (!(known as string[]).includes(state))
      throw CamundaErrors.invalid(`state must be one of ${known.join(', ')}`);
    wanted.push(state as HistoricState);
  }
  if (new Set(wanted).size > 1)
    throw CamundaErrors.invalid('Only one process instance state can be asked for');
  const stateFilter: Pick<InstanceQuery, 'states' | 'suspended'> =
    wanted[0] === undefined ? {} : statesOf(wanted[0]);
  const definitionId = parameters.text('processDefinitionId');
  const withoutTenant = parameters.set('withoutTenantId');
  const sort = parameters.sort(
    {
      instanceId: 'id',
      definitionId: 'definitionId',
      definitionKey: 'definitionKey',
      businessKey: 'businessKey',
      startTime: 'startedAt',
      endTime: 'endedAt',
      duration: 'duration',
      tenantId: 'tenantId',
    } as const,
    'id',
  );
  return {
    query: {
      ids: idFilter(parameters.values('processInstanceId', 'processInstanceIds'), withoutTenant),
      businessKey: parameters.text('processInstanceBusinessKey'),
      businessKeyLike: parameters.text('processInstanceBusinessKeyLike'),
      definitionIds: definitionId === undefined ? undefined : [definitionId],
      definitionKeys: parameters.values('processDefinitionKey', 'processDefinitionKeyIn'),
      parentId: parameters.text('superProcessInstanceId'),
      open: finished ? false : unfinished ? true : undefined,
      withIncident: parameters.set('withIncidents') || undefined,
      ...stateFilter,
      startedAfter: parameters.date('startedAfter'),
      startedBefore: parameters.date('startedBefore'),
      endedAfter: parameters.date('finishedAfter'),
      endedBefore: parameters.date('finishedBefore'),
      variables: variableConditionsOf(parameters.text('variables')),
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: { ...sort, ...parameters.paging() },
  };
}
