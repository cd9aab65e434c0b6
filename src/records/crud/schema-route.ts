import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessCheck } from '../auth/access-check.js';
import { identityOf } from '../auth/request-identity.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { describeSchema } from '../schemas/schema-description.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';

/**
 * `GET /api/{path}/_schema`: the schema's fields (types, constraints, flags) and what the caller may
 * read, write and do, so a client can build forms and filters. Needs the schema's `read` role.
 * (`_schema` can never be a record id, which is a UUID.)
 */
export function registerSchemaRoute(
  app: HttpServer,
  deps: { registry: SchemaRegistry; access: AccessCheck },
): void {
  const { prepare } = schemaRequest(deps.registry, deps.access);
  app.get(`${schemaBase}/_schema`, scopedRoute('schemas'), (request) => {
    const schema = prepare(request, 'read', 'schema');
    return {
      data: describeSchema(schema.definition, identityOf(request)),
      status: 'success',
      requestId: request.id,
    };
  });
}
