import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type { CamundaIncidentApi, CamundaIncidentRequest } from './incident-api.js';
import { pagingParameters, QueryParameters } from './query-parameters.js';

/** Camunda 7's `/incident` resource: the open incidents (docs/workflow/camunda7.md, Incidents). */
export function registerIncidentRoutes(scope: HttpServer, api: CamundaIncidentApi): void {
  scope.get('/incident', async (request) =>
    api.list(incidentQueryOf(request.query, true), identityOf(request)),
  );
  scope.get('/incident/count', async (request) => ({
    count: await api.count(incidentQueryOf(request.query, false), identityOf(request)),
  }));
}

const filterParameters = [
  'incidentId',
  'incidentType',
  'incidentMessage',
  'incidentMessageLike',
  'processDefinitionId',
  'processDefinitionKeyIn',
  'processInstanceId',
  'executionId',
  'activityId',
  'failedActivityId',
  'configuration',
  'tenantIdIn',
  'incidentTimestampBefore',
  'incidentTimestampAfter',
];
const sortFields = [
  'incidentId',
  'incidentMessage',
  'incidentTimestamp',
  'incidentType',
  'activityId',
  'processInstanceId',
  'processDefinitionId',
  'configuration',
  'tenantId',
] as const;

/** Reads the query string of GET /incident (with paging and sorting) or /count; 400 for what is not supported. */
export function incidentQueryOf(raw: unknown, paged: boolean): CamundaIncidentRequest {
  const allowed = paged
    ? [...filterParameters, ...pagingParameters, 'sortBy', 'sortOrder']
    : filterParameters;
  const parameters = new QueryParameters(raw, allowed);
  const id = parameters.text('incidentId');
  const activityId = parameters.text('activityId');
  const failedActivityId = parameters.text('failedActivityId');
  const executionId = parameters.text('executionId');
  const configuration = parameters.text('configuration');
  // weft's activity and failed activity are one; so are the execution and the configuration: two
  // different values select nothing.
  const conflicting =
    (activityId !== undefined && failedActivityId !== undefined && activityId !== failedActivityId) ||
    (configuration !== undefined && executionId !== undefined && configuration !== executionId);
  const sorting = paged ? parameters.sorting(sortFields) : undefined;
  return {
    query: {
      ids: conflicting ? [] : id === undefined ? undefined : [id],
      type: parameters.oneOf('incidentType', ['failedJob', 'failedExternalTask'] as const),
      message: parameters.text('incidentMessage'),
      messageLike: parameters.text('incidentMessageLike'),
      definitionId: parameters.text('processDefinitionId'),
      processKeys: parameters.list('processDefinitionKeyIn'),
      processInstanceId: parameters.text('processInstanceId'),
      activityId: activityId ?? failedActivityId,
      configuration: configuration ?? executionId,
      createdBefore: parameters.date('incidentTimestampBefore'),
      createdAfter: parameters.date('incidentTimestampAfter'),
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: paged ? parameters.page() : { firstResult: 0, maxResults: 0 },
    order: sorting === undefined ? undefined : { by: sorting.by, descending: sorting.descending },
  };
}
