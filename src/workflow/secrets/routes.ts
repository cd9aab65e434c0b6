import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { OrgHeader, orgIdOf } from '../identity/orgs/org-header.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import { PutSecretBody, SecretNameParams, SecretSummary } from './schemas.js';
import type { SecretService } from './secret-service.js';

/** Secrets of an organisation: create or replace, list names, delete (OrgAdmin). */
export function registerSecretRoutes(app: HttpServer, secrets: SecretService): void {
  const tags = ['secrets'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/secrets',
    {
      schema: {
        tags,
        security,
        summary: 'Create (201) or replace (200) a secret (OrgAdmin)',
        description:
          'The value is encrypted at rest and never returned, logged or written to the history. ' +
          'HTTP connectors use it through `{{secret:<name>}}` placeholders.',
        headers: OrgHeader,
        body: PutSecretBody,
        response: { 201: SecretSummary, 200: SecretSummary, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const { created, ...summary } = await secrets.put(
        identityOf(request),
        orgIdOf(request.headers),
        request.body.name,
        request.body.value,
      );
      return reply.status(created ? 201 : 200).send(summary);
    },
  );

  app.get(
    '/api/v1/secrets',
    {
      schema: {
        tags,
        security,
        summary: "The organisation's secrets: names and times, never values (OrgAdmin)",
        headers: OrgHeader,
        response: { 200: Type.Array(SecretSummary), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => secrets.list(identityOf(request), orgIdOf(request.headers)),
  );

  app.delete(
    '/api/v1/secrets/:name',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a secret (OrgAdmin)',
        headers: OrgHeader,
        params: SecretNameParams,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await secrets.delete(identityOf(request), orgIdOf(request.headers), request.params.name);
      return reply.status(204).send(null);
    },
  );
}
