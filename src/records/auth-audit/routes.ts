import Type from 'typebox';
import type { Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import { AuthErrors } from '../auth/auth-errors.js';
import { identityOf } from '../auth/request-identity.js';
import { authOutcomes, type AuthAuditLog } from './auth-audit-log.js';
import { listAuthAuditEntries } from './auth-audit-repository.js';
import '../auth/scopes/scoped-operations.js';

/** The role that may read the auth audit log. */
export const platformAuditorRole = 'platform-auditor';

const Query = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 512 })),
  outcome: Type.Optional(Type.Enum([...authOutcomes])),
  strategy: Type.Optional(Type.String({ maxLength: 512 })),
  since: Type.Optional(Type.String({ format: 'date-time' })),
  until: Type.Optional(Type.String({ format: 'date-time' })),
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 100 })),
});

const Entry = Type.Object({
  event_id: Type.Integer(),
  timestamp: Type.String(),
  actor: Type.Union([Type.String(), Type.Null()]),
  operation: Type.String(),
  resource: Type.String(),
  strategy: Type.String(),
  outcome: Type.String(),
  fail_mode: Type.String(),
  request_id: Type.String(),
});

/**
 * `GET /api/platform/audit/auth`: the auth audit log, newest first, for actors with the role
 * `platform-auditor` (others: 403 RBAC_DENIED). Filters `actor`, `outcome`, `strategy`, `since`,
 * `until`; pages with `limit` (default 100, at most 1000) and `before` (an `event_id`).
 */
export function registerAuthAuditRoutes(app: HttpServer, deps: { pool: Pool; audit: AuthAuditLog }): void {
  app.get(
    '/api/platform/audit/auth',
    {
      config: { recordsScope: 'audit' },
      schema: {
        tags: ['platform'],
        summary: 'Authentication and authorization decisions',
        security: [{ bearer: [] }],
        querystring: Query,
        response: {
          200: Type.Object({ data: Type.Array(Entry), status: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request) => {
      if (!identityOf(request).roles.includes(platformAuditorRole))
        throw AuthErrors.forbidden('read the auth audit log', platformAuditorRole);
      const query = request.query as {
        actor?: string;
        outcome?: string;
        strategy?: string;
        since?: string;
        until?: string;
        before?: number;
        limit?: number;
      };
      await deps.audit.flush();
      const rows = await listAuthAuditEntries(deps.pool, {
        actor: query.actor ?? null,
        outcome: query.outcome ?? null,
        strategy: query.strategy ?? null,
        since: query.since ?? null,
        until: query.until ?? null,
        before: query.before ?? null,
        limit: Math.min(query.limit ?? 100, 1000),
      });
      return {
        data: rows.map((row) => ({
          event_id: Number(row.event_id),
          timestamp: row.at.toISOString(),
          actor: row.actor,
          operation: row.operation,
          resource: row.resource,
          strategy: row.strategy,
          outcome: row.outcome,
          fail_mode: row.fail_mode,
          request_id: row.request_id,
        })),
        status: 'success',
        requestId: request.id,
      };
    },
  );
}
