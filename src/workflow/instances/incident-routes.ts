import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, Uuid } from '../common-schemas.js';
import type { InstanceService } from './instance-service.js';
import { decodeCursor, encodeCursor } from './list-cursor.js';
import { clampLimit } from './routes.js';

/** An open incident with its instance. */
const OrgIncident = Type.Object({
  id: Uuid,
  process_instance_id: Uuid,
  process_key: Type.String(),
  definition_id: Uuid,
  business_key: Type.Union([Type.String(), Type.Null()]),
  activity_id: Type.String(),
  kind: Type.String(),
  message: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

/** GET /api/v1/incidents query. */
const ListIncidentsQuery = Type.Object({
  org_id: Uuid,
  element_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  error: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: 'text the message contains, any case' }),
  ),
  limit: Type.Optional(Type.Integer({ description: 'default 100, clamped to 1..500' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: "the previous page's X-Next-Cursor" })),
});

/** The open incidents of an org across its instances (docs/workflow/operations.md). */
export function registerIncidentRoutes(app: HttpServer, instances: InstanceService): void {
  app.get(
    '/api/v1/incidents',
    {
      schema: {
        tags: ['process-instances'],
        security: bearerSecurity,
        summary: "Open incidents of an organisation's instances, newest first; next page in X-Next-Cursor",
        querystring: ListIncidentsQuery,
        response: { 200: Type.Array(OrgIncident), ...authenticatedErrors },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const page = await instances.incidents(identityOf(request), {
        orgId: query.org_id,
        elementId: query.element_id,
        error: query.error,
        limit: clampLimit(query.limit),
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      });
      if (page.last) reply.header('x-next-cursor', encodeCursor(page.last));
      return page.items;
    },
  );
}
