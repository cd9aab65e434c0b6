import Type from 'typebox';
import type { HttpServer } from '../../../platform/http/http-server.js';
import { identityOf } from '../auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, OrgIdParams } from '../../common-schemas.js';
import type { OrgService } from './org-service.js';
import {
  CreateOrgBody,
  MemberParams,
  Membership,
  MembershipBody,
  Org,
  ProcessGroup,
  ProcessGroupBody,
} from './schemas.js';

/** Organisations, memberships and process groups. */
export function registerOrgRoutes(app: HttpServer, orgs: OrgService): void {
  const tags = ['organisations'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/orgs',
    {
      schema: {
        tags,
        security,
        summary: 'Create an organisation (PlatformAdmin)',
        body: CreateOrgBody,
        response: { 201: Org, ...authenticatedErrors, 409: ErrorBody },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await orgs.create(identityOf(request), request.body.name, request.body.slug)),
  );

  app.get(
    '/api/v1/orgs',
    {
      schema: {
        tags,
        security,
        summary: 'Organisations the caller belongs to (all of them for a PlatformAdmin)',
        response: { 200: Type.Array(Org), ...authenticatedErrors },
      },
    },
    (request) => orgs.list(identityOf(request)),
  );

  app.get(
    '/api/v1/orgs/:org_id/members',
    {
      schema: {
        tags,
        security,
        summary: 'Members of an organisation with their roles (OrgAdmin)',
        params: OrgIdParams,
        response: { 200: Type.Array(Membership), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => orgs.members(identityOf(request), request.params.org_id),
  );

  app.put(
    '/api/v1/orgs/:org_id/members/:user_id',
    {
      schema: {
        tags,
        security,
        summary: "Set a user's roles in an organisation (OrgAdmin)",
        params: MemberParams,
        body: MembershipBody,
        response: { 200: Membership, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) =>
      orgs.setMembership(
        identityOf(request),
        request.params.org_id,
        request.params.user_id,
        request.body.roles,
      ),
  );

  app.delete(
    '/api/v1/orgs/:org_id/members/:user_id',
    {
      schema: {
        tags,
        security,
        summary: 'Remove a user from an organisation (OrgAdmin)',
        params: MemberParams,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await orgs.removeMembership(identityOf(request), request.params.org_id, request.params.user_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/orgs/:org_id/process-groups',
    {
      schema: {
        tags,
        security,
        summary: 'Create a process group (OrgAdmin or Developer)',
        params: OrgIdParams,
        body: ProcessGroupBody,
        response: { 201: ProcessGroup, ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await orgs.createProcessGroup(identityOf(request), request.params.org_id, request.body.name)),
  );

  app.get(
    '/api/v1/orgs/:org_id/process-groups',
    {
      schema: {
        tags,
        security,
        summary: 'Process groups of an organisation (any member)',
        params: OrgIdParams,
        response: { 200: Type.Array(ProcessGroup), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => orgs.processGroups(identityOf(request), request.params.org_id),
  );
}
