import Type from 'typebox';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import { AuthErrors } from '../auth/auth-errors.js';
import { identityOf } from '../auth/request-identity.js';
import { revokeRoleBinding } from './role-binding-repository.js';
import '../auth/scopes/scoped-operations.js';

/** The role that may revoke and delete role bindings. */
export const platformAdminRole = 'platform-admin';

const NameParams = Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{0,252}$' }) });

/**
 * `POST /api/platform/role-bindings/{name}/revoke` (the binding stays declared but grants nothing
 * until its document changes) and `DELETE /api/platform/role-bindings/{name}` (the document goes
 * too), both 204 for `platform-admin`. Either writes the actor to the revocation set: its
 * credentials issued until now are refused on every instance within one poll.
 */
export function registerRoleBindingRoutes(
  app: HttpServer,
  deps: { pool: Pool; publish: () => Promise<void> },
): void {
  const change = (deleteDocument: boolean) => async (request: { params: unknown }) => {
    const { name } = request.params as { name: string };
    const changed = await withTransaction(deps.pool, (client) =>
      revokeRoleBinding(client, name, deleteDocument),
    );
    if (!changed) throw AuthErrors.bindingNotFound(name);
    await deps.publish();
  };
  const guard = (operation: string) => (request: Parameters<typeof identityOf>[0]) => {
    if (!identityOf(request).roles.includes(platformAdminRole))
      throw AuthErrors.forbidden(operation, platformAdminRole);
  };
  app.post(
    '/api/platform/role-bindings/:name/revoke',
    {
      config: { recordsScope: 'admin' },
      schema: {
        tags: ['platform'],
        summary: 'Revoke a role binding',
        params: NameParams,
        security: [{ bearer: [] }],
        response: { 204: Type.Null({ description: 'Revoked' }) },
      },
    },
    async (request, reply) => {
      guard('revoke role bindings')(request);
      await change(false)(request);
      return reply.status(204).send(null);
    },
  );
  app.delete(
    '/api/platform/role-bindings/:name',
    {
      config: { recordsScope: 'admin' },
      schema: {
        tags: ['platform'],
        summary: 'Delete a role binding',
        params: NameParams,
        security: [{ bearer: [] }],
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      guard('delete role bindings')(request);
      await change(true)(request);
      return reply.status(204).send(null);
    },
  );
}
