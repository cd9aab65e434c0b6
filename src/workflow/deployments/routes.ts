import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { DefinitionRecord } from '../engine/store/process-definitions.js';
import type { DeploymentService } from './deployment-service.js';
import {
  DeployBody,
  DeploymentIdParams,
  DeploymentStatistics,
  DeployResponse,
  ListDeploymentsQuery,
  ProcessDefinition,
  ProcessDefinitionWithXml,
  RenameByKeyBody,
  SetDisabledBody,
  SetHistoryTimeToLiveBody,
  VersionInstanceCounts,
} from './schemas.js';

function present<T extends DefinitionRecord>(definition: T): Omit<T, 'org_id'> {
  const { org_id: _org, ...shown } = definition;
  return shown;
}

/** Deployments: deploy, list, show, statistics, disable, history time to live, rename by key. */
export function registerDeploymentRoutes(app: HttpServer, deployments: DeploymentService): void {
  const tags = ['deployments'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/deployments',
    {
      schema: {
        tags,
        security,
        summary: 'Deploy BPMN: each executable process becomes the next version of its key (Developer)',
        description:
          'XML identical to the latest version returns that version with 200 instead of a new one. ' +
          'Camunda Forms in `forms` are stored as versions of their keys in the same transaction.',
        body: DeployBody,
        response: { 200: DeployResponse, 201: DeployResponse, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const result = await deployments.deploy(identityOf(request), request.body);
      const shown = result.definitions.map(present);
      const first = shown[0];
      if (!first) throw new Error('a successful compile yields at least one process');
      const forms = result.forms.map(({ form }) => ({
        id: form.id,
        form_key: form.form_key,
        version: form.version,
        resource_name: form.resource_name,
        deployed_at: form.deployed_at.toISOString(),
      }));
      return reply.status(result.created ? 201 : 200).send({ ...first, definitions: shown, forms });
    },
  );

  app.get(
    '/api/v1/deployments',
    {
      schema: {
        tags,
        security,
        summary: 'Deployed versions and drafts of an organisation, newest first',
        querystring: ListDeploymentsQuery,
        response: { 200: Type.Array(ProcessDefinition), ...authenticatedErrors },
      },
    },
    async (request) =>
      (await deployments.list(identityOf(request), request.query.org_id, request.query.process_key)).map(
        present,
      ),
  );

  app.get(
    '/api/v1/deployments/statistics',
    {
      schema: {
        tags,
        security,
        summary: 'Instance counts per version of an organisation (versions without instances are left out)',
        querystring: ListDeploymentsQuery,
        response: { 200: Type.Array(VersionInstanceCounts), ...authenticatedErrors },
      },
    },
    (request) =>
      deployments.instanceCounts(identityOf(request), request.query.org_id, request.query.process_key),
  );

  app.get(
    '/api/v1/deployments/:id/statistics',
    {
      schema: {
        tags,
        security,
        summary: "A version's instance counts, and its live tokens and open incidents per element",
        params: DeploymentIdParams,
        response: { 200: DeploymentStatistics, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => deployments.statistics(identityOf(request), request.params.id),
  );

  app.get(
    '/api/v1/deployments/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One version with its XML',
        params: DeploymentIdParams,
        response: {
          200: ProcessDefinitionWithXml,
          ...authenticatedErrors,
          404: ErrorBody,
        },
      },
    },
    async (request) => present(await deployments.get(identityOf(request), request.params.id)),
  );

  app.patch(
    '/api/v1/deployments/:id/disabled',
    {
      schema: {
        tags,
        security,
        summary: 'Disable or enable a version (Developer); drafts cannot be disabled (409 U409)',
        params: DeploymentIdParams,
        body: SetDisabledBody,
        response: { 200: ProcessDefinition, ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request) =>
      present(await deployments.setDisabled(identityOf(request), request.params.id, request.body.disabled)),
  );

  app.patch(
    '/api/v1/deployments/:id/history-time-to-live',
    {
      schema: {
        tags,
        security,
        summary: "Set how many days the history of a version's instances is kept after they end (Developer)",
        description:
          'null: the global WORKFLOW_HISTORY_RETENTION_DAYS. The next history housekeeping run applies it to instances that have already ended.',
        params: DeploymentIdParams,
        body: SetHistoryTimeToLiveBody,
        response: { 200: ProcessDefinition, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request) =>
      present(
        await deployments.setHistoryTimeToLive(
          identityOf(request),
          request.params.id,
          request.body.history_time_to_live,
        ),
      ),
  );

  app.patch(
    '/api/v1/deployments/by-key',
    {
      schema: {
        tags,
        security,
        summary: 'Rename every version and draft of a process key in one transaction (Developer)',
        body: RenameByKeyBody,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await deployments.renameByKey(identityOf(request), request.body);
      return reply.status(204).send(null);
    },
  );
}
