import type { HttpServer } from '../../platform/http/http-server.js';
import { stringifyExactJson } from '../../platform/json/exact-json.js';
import { identityOf } from '../auth/request-identity.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';
import { parseInstant } from '../history/instant.js';
import { successBody } from '../http/envelope.js';
import { parseLimit } from '../records/select-plan.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { AuditFilter } from './audit-repository.js';
import { auditProblem, VerifyBody, verifyProblems } from './schemas.js';
import type { AuditService } from './audit-service.js';

/** What the audit routes need. */
export interface AuditRouteDependencies {
  audit: AuditService;
}

const auditRoute = scopedRoute('audit');
const operations = new Set(['CREATE', 'UPDATE', 'DELETE', 'RESTORE', 'UNARCHIVE', 'ARCHIVE', 'ERASE']);
const cursorShape = /^e(\d{1,18})$/;

function fail(field: string, reason: string): never {
  throw auditProblem(field, reason);
}

function text(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value === '' || value.length > max)
    return fail(field, `must be a string of 1 to ${max} characters`);
  return value;
}

/**
 * `POST /api/platform/audit/verify` and `GET /api/platform/audit`. Reading a schema's audit needs
 * read access to it; reading across schemas needs the `auditor` role. Verify checks the chain, the
 * history rows it covers and, with a signing key, the record's newest signed anchor.
 */
export function registerAuditRoutes(app: HttpServer, deps: AuditRouteDependencies): void {
  const { audit } = deps;

  app.post(
    '/api/platform/audit/verify',
    {
      ...auditRoute,
      schema: { ...auditRoute.schema, body: VerifyBody },
      schemaErrorFormatter: verifyProblems,
    },
    async (request, reply) => {
      const identity = identityOf(request);
      const schema = audit.readable(identity, text(request.body.schema, 'schema'));
      const entity = text(request.body.id, 'id', 36);
      if (!uuidPattern.test(entity)) fail('id', 'must be a record id (UUID)');
      const result = await audit.verify(identity, schema, entity);
      return reply.type('application/json').send(successBody(JSON.stringify(result), request.id));
    },
  );

  // Parameters are checked one by one in the order sent, the schema's read access among them: a
  // route schema would check every name before any value and change which problem is answered.
  app.get('/api/platform/audit', auditRoute, async (request, reply) => {
    const identity = identityOf(request);
    const query = request.query as Record<string, unknown>;
    const filter: AuditFilter = {};
    for (const [key, value] of Object.entries(query)) {
      switch (key) {
        case 'schema':
          filter.schemas = [audit.readable(identity, text(value, key)).path];
          break;
        case 'entity_id':
          if (typeof value !== 'string' || !uuidPattern.test(value)) fail(key, 'must be a UUID');
          filter.entityId = value.toLowerCase();
          break;
        case 'actor':
          filter.actor = text(value, key);
          break;
        case 'operation':
          if (typeof value !== 'string' || !operations.has(value))
            fail(key, `must be one of ${[...operations].join(', ')}`);
          filter.operation = value;
          break;
        case 'from':
        case 'to':
          filter[key] = parseInstant(value, key);
          break;
        case 'cursor': {
          const match = typeof value === 'string' ? cursorShape.exec(value) : null;
          if (!match?.[1]) fail(key, 'is not a cursor of this endpoint');
          filter.beforeEventId = match[1];
          break;
        }
        case 'limit':
          break;
        default:
          fail(key.slice(0, 100), 'is not a parameter of the audit log');
      }
    }
    const schemas = audit.listedSchemas(identity, filter.schemas);
    const limit = parseLimit(query.limit);
    const page = await audit.list(identity, { ...filter, schemas }, limit);
    return reply
      .type('application/json')
      .send(
        successBody(
          stringifyExactJson(page.events),
          request.id,
          `,"pagination":${JSON.stringify(page.pagination)}`,
        ),
      );
  });
}
