import {
  envelope,
  errorResponse,
  jsonBody,
  jsonResponse,
  recordSecurity,
  ref,
  type Json,
} from './openapi-parts.js';

const tags = ['platform'];
const security = recordSecurity;

/**
 * The platform routes Fastify does not describe itself (they are hidden from its generated document
 * so their replies are sent as built, without a response serializer): metrics, this document, the
 * audit log and its verification, org-wide search.
 */
export const platformPaths: Json = {
  '/api/metrics': {
    get: {
      tags,
      summary: 'Prometheus exposition (roles platform-metrics or platform-admin)',
      security,
      responses: {
        '200': {
          description: 'Prometheus text format',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
    },
  },
  '/api/openapi.json': {
    get: {
      tags,
      summary: 'This document (regenerated when the schemas change)',
      security,
      responses: {
        '200': jsonResponse({ type: 'object', additionalProperties: true }, 'The OpenAPI document'),
      },
    },
  },
  '/api/platform/audit': {
    get: {
      tags,
      summary: 'The audit log, newest first (across schemas needs the auditor role)',
      security,
      parameters: [
        { name: 'schema', in: 'query', schema: { type: 'string' } },
        { name: 'entity_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
        { name: 'actor', in: 'query', schema: { type: 'string' } },
        {
          name: 'operation',
          in: 'query',
          schema: { type: 'string', enum: ['CREATE', 'UPDATE', 'DELETE', 'RESTORE', 'UNARCHIVE', 'ARCHIVE'] },
        },
        { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time' } },
        { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time' } },
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
      ],
      responses: {
        '200': jsonResponse(
          envelope({ type: 'array', items: ref('AuditEvent') }, { pagination: ref('Pagination') }),
          'A page of audit events',
        ),
      },
    },
  },
  '/api/platform/audit/verify': {
    post: {
      tags,
      summary: "Verify a record's audit chain, its history rows and its signed anchor",
      security,
      requestBody: jsonBody(ref('AuditVerifyRequest')),
      responses: { '200': jsonResponse(envelope(ref('AuditVerification')), 'The verification result') },
    },
  },
  '/api/{org}/search': {
    get: {
      tags,
      summary: 'Search every search tier 2 and 3 schema of an org the caller may read',
      security,
      parameters: [
        { name: 'org', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 500 } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
      ],
      responses: {
        '200': jsonResponse(envelope({ type: 'array', items: ref('OrgSearchHit') }), 'Hits across schemas'),
        '400': errorResponse('Missing or invalid q'),
      },
    },
  },
};

/** Refusals of the public OIDC routes, which the generic error answers of public routes leave out. */
export const publicRouteRefusals: Record<string, Record<string, Json>> = {
  '/api/auth/login': {
    get: { '404': errorResponse('No (or no such) OIDC strategy') },
  },
  '/api/auth/callback': {
    get: {
      '401': errorResponse('Login failed (state, code or ID token refused)'),
      '404': errorResponse('No such OIDC strategy'),
    },
    post: {
      '401': errorResponse('Login failed (state, code or ID token refused)'),
      '404': errorResponse('No such OIDC strategy'),
    },
  },
};
