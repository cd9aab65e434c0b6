import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from './request-identity.js';
import './scopes/scoped-operations.js';

/**
 * `GET /api/auth/me`: the caller's Identity as the service sees it after claim mapping and role
 * bindings (`{actor_id, roles, attributes, scope?}`), the strategy that authenticated it and the token
 * scopes its credential grants (`scopes`; `scope` is a role binding's scope map).
 */
export function registerIdentityRoute(app: HttpServer): void {
  app.get(
    '/api/auth/me',
    {
      config: { recordsScope: 'identity' },
      schema: {
        tags: ['auth'],
        summary: 'The authenticated identity',
        security: [{ bearer: [] }],
        response: {
          200: Type.Object({
            data: Type.Object({
              actor_id: Type.String(),
              roles: Type.Array(Type.String()),
              attributes: Type.Record(Type.String(), Type.Unknown()),
              scope: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
              strategy: Type.String(),
              scopes: Type.Array(Type.String()),
            }),
            status: Type.String(),
            requestId: Type.String(),
          }),
        },
      },
    },
    (request) => {
      const identity = identityOf(request);
      const decision = request.recordsAuthDecision;
      return {
        data: {
          ...identity,
          strategy: decision?.ok === true ? decision.strategy : '',
          scopes: decision?.ok === true ? [...decision.scopes] : [],
        },
        status: 'success',
        requestId: request.id,
      };
    },
  );
}
