import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { OrgHeader, orgIdOf } from '../identity/orgs/org-header.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import {
  DecisionKeyParams,
  DecisionListItem,
  DecisionXml,
  DeployBody,
  DeployedDecision,
  EvaluateBody,
  EvaluationResult,
  ListQuery,
  RenameBody,
  XmlQuery,
} from './schemas.js';
import type { DecisionService } from './decision-service.js';

/** Decisions: deploy DMN files, list and rename decision keys, read a version's DMN, evaluate a version. */
export function registerDecisionRoutes(app: HttpServer, decisions: DecisionService): void {
  const tags = ['decisions'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/decisions',
    {
      schema: {
        tags,
        security,
        summary: 'Deploy a DMN file: each decision becomes a new version of its key (Developer)',
        description:
          'A decision identical to the latest version of its key is not deployed again; that version is returned ' +
          '(200 instead of 201 when that holds for every decision of the file). ' +
          'A file with problems gives 400 listing every problem in details.errors and stores nothing.',
        headers: OrgHeader,
        body: DeployBody,
        response: {
          201: Type.Array(DeployedDecision),
          200: Type.Array(DeployedDecision),
          ...authenticatedErrors,
          404: ErrorBody,
          413: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const result = await decisions.deploy(identityOf(request), orgIdOf(request.headers), request.body.xml);
      return reply.status(result.created ? 201 : 200).send(result.decisions);
    },
  );

  app.get(
    '/api/v1/decisions',
    {
      schema: {
        tags,
        security,
        summary: 'The latest version of each decision key, or all versions (any role in the organisation)',
        headers: OrgHeader,
        querystring: ListQuery,
        response: { 200: Type.Array(DecisionListItem), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) =>
      decisions.list(identityOf(request), orgIdOf(request.headers), request.query.all_versions === true),
  );

  app.get(
    '/api/v1/decisions/:decision_key/xml',
    {
      schema: {
        tags,
        security,
        summary:
          'The DMN file of the latest or a pinned version of a decision, to draw it (any role in the organisation)',
        headers: OrgHeader,
        params: DecisionKeyParams,
        querystring: XmlQuery,
        response: { 200: DecisionXml, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) =>
      decisions.xml(
        identityOf(request),
        orgIdOf(request.headers),
        request.params.decision_key,
        request.query.version ?? null,
      ),
  );

  app.patch(
    '/api/v1/decisions/by-key',
    {
      schema: {
        tags,
        security,
        summary: 'Rename a decision key, and so every version of it (Developer)',
        headers: OrgHeader,
        body: RenameBody,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await decisions.rename(
        identityOf(request),
        orgIdOf(request.headers),
        request.body.decision_key,
        request.body.name,
      );
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/decisions/:decision_key/evaluate',
    {
      schema: {
        tags,
        security,
        summary: 'Evaluate the latest or a pinned version of a decision (Developer or Operator)',
        description:
          'Missing input data is an error. A decision that cannot be evaluated with the variables gives ' +
          '422 U422 naming the decision and rule in details.',
        headers: OrgHeader,
        params: DecisionKeyParams,
        body: EvaluateBody,
        response: { 200: EvaluationResult, ...authenticatedErrors, 404: ErrorBody, 422: ErrorBody },
      },
    },
    (request) =>
      decisions.evaluate(
        identityOf(request),
        orgIdOf(request.headers),
        request.params.decision_key,
        request.body.version ?? null,
        request.body.variables,
      ),
  );
}
