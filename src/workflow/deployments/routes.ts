import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, Uuid } from '../common-schemas.js';
import type { DefinitionRecord } from '../engine/store/process-definitions.js';
import type { DeploymentService } from './deployment-service.js';

const ProcessDefinition = Type.Object({
  id: Uuid,
  process_key: Type.String(),
  version: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a draft' }),
  name: Type.String(),
  disabled: Type.Boolean(),
  draft: Type.Boolean(),
  deployed_at: Type.String({ format: 'date-time' }),
  process_group_id: Uuid,
});
const DeployResponse = Type.Object({
  ...ProcessDefinition.properties,
  definitions: Type.Array(ProcessDefinition, {
    description: 'every process of the document, the first one above',
  }),
});
const DeployBody = Type.Object(
  {
    org_id: Uuid,
    process_group_id: Uuid,
    xml: Type.String({ minLength: 1 }),
    draft: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

function present<T extends DefinitionRecord>(definition: T): Omit<T, 'org_id'> {
  const { org_id: _org, ...shown } = definition;
  return shown;
}

/** Deployments: deploy, list, show, disable, rename by key. */
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
          'XML identical to the latest version returns that version with 200 instead of a new one.',
        body: DeployBody,
        response: { 200: DeployResponse, 201: DeployResponse, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const result = await deployments.deploy(identityOf(request), request.body);
      const shown = result.definitions.map(present);
      const first = shown[0];
      if (!first) throw new Error('a successful compile yields at least one process');
      return reply.status(result.created ? 201 : 200).send({ ...first, definitions: shown });
    },
  );

  app.get(
    '/api/v1/deployments',
    {
      schema: {
        tags,
        security,
        summary: 'Deployed versions and drafts of an organisation, newest first',
        querystring: Type.Object({
          org_id: Uuid,
          process_key: Type.Optional(Type.String({ maxLength: 255 })),
        }),
        response: { 200: Type.Array(ProcessDefinition), ...authenticatedErrors },
      },
    },
    async (request) =>
      (await deployments.list(identityOf(request), request.query.org_id, request.query.process_key)).map(
        present,
      ),
  );

  app.get(
    '/api/v1/deployments/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One version with its XML',
        params: Type.Object({ id: Uuid }),
        response: {
          200: Type.Object({ ...ProcessDefinition.properties, xml: Type.String() }),
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
        params: Type.Object({ id: Uuid }),
        body: Type.Object({ disabled: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: ProcessDefinition, ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request) =>
      present(await deployments.setDisabled(identityOf(request), request.params.id, request.body.disabled)),
  );

  app.patch(
    '/api/v1/deployments/by-key',
    {
      schema: {
        tags,
        security,
        summary: 'Rename every version and draft of a process key in one transaction (Developer)',
        body: Type.Object(
          {
            org_id: Uuid,
            process_group_id: Uuid,
            process_key: Type.String({ minLength: 1, maxLength: 255 }),
            name: Type.String({ minLength: 1, maxLength: 255 }),
          },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await deployments.renameByKey(identityOf(request), request.body);
      return reply.status(204).send(null);
    },
  );
}
