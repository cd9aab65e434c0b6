import type { CompiledSchema } from '../schemas/compiled-schema.js';
import {
  envelope,
  errorResponse,
  idParameter,
  idempotencyHeader,
  jsonBody,
  jsonResponse,
  recordSecurity,
  ref,
  type Json,
} from './openapi-parts.js';
import { pageOf, type SchemaComponentNames } from './schema-paths.js';

const instant = (name: string, required = true): Json => ({
  name,
  in: 'query',
  required,
  schema: { type: 'string', format: 'date-time' },
});
const snapshotParameter = {
  name: 'snapshot_id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
const idempotent = {
  '409': errorResponse('A request with this Idempotency-Key is still running'),
  '422': errorResponse('Idempotency-Key reused with another request'),
};

const unavailable = (reason: string): Json => ({
  description: `Not for this schema: ${reason} (every request here is 400 VALIDATION_ERROR)`,
});

/**
 * The time machine: history, diff, restore, replay, snapshots. Only schemas with
 * `timeMachine: true` keep history; for others each operation says it answers 400.
 */
export function timeMachinePaths(schema: CompiledSchema, names: SchemaComponentNames): Json {
  const tags = [schema.path];
  const note = schema.definition.timeMachine ? {} : unavailable('it keeps no history (timeMachine: false)');
  const base = `/api/${schema.path}`;
  const security = recordSecurity;
  const state = ref(names.fields);
  return {
    [`${base}/{id}/history`]: {
      get: {
        tags,
        ...note,
        summary: 'History events (limit, offset), or with `at` the record as it was then',
        security,
        parameters: [
          idParameter,
          instant('at', false),
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
        ],
        responses: {
          '200': jsonResponse(
            {
              oneOf: [
                envelope({ type: 'array', items: ref('HistoryEvent') }, { pagination: ref('Pagination') }),
                envelope(state),
              ],
            },
            'A page of history events, or the state at `at`',
          ),
        },
      },
    },
    [`${base}/{id}/diff`]: {
      get: {
        tags,
        ...note,
        summary: 'What changed between two instants',
        security,
        parameters: [idParameter, instant('from'), instant('to')],
        responses: { '200': jsonResponse(envelope(ref('Diff')), 'The diff') },
      },
    },
    [`${base}/{id}/restore`]: {
      post: {
        tags,
        ...note,
        summary: 'Give the record its state at an instant (a new version)',
        security,
        parameters: [idParameter, idempotencyHeader],
        requestBody: jsonBody(ref('InstantAndReason')),
        responses: {
          '201': jsonResponse(envelope(state), 'The restored record'),
          ...idempotent,
        },
      },
    },
    [`${base}/{id}/replay`]: {
      get: {
        tags,
        ...note,
        summary: 'Every history event as Server-Sent Events (resumes after Last-Event-ID)',
        security,
        parameters: [
          idParameter,
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'One `data:` line holding a history event per message, `id:` its event_id',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        },
      },
    },
    [`${base}/history/snapshot`]: {
      post: {
        tags,
        ...note,
        summary: 'Request a snapshot of every record at an instant',
        security,
        requestBody: jsonBody(ref('InstantAndReason')),
        responses: { '202': jsonResponse(envelope(ref('Snapshot')), 'The snapshot, in_progress') },
      },
    },
    [`${base}/history/snapshot/{snapshot_id}`]: {
      get: {
        tags,
        ...note,
        summary: 'A snapshot and its status',
        security,
        parameters: [snapshotParameter],
        responses: { '200': jsonResponse(envelope(ref('Snapshot')), 'The snapshot') },
      },
    },
    [`${base}/history/snapshot/{snapshot_id}/records`]: {
      get: {
        tags,
        ...note,
        summary: 'The records of a completed snapshot (list parameters apply)',
        security,
        parameters: [snapshotParameter],
        responses: { '200': jsonResponse(pageOf(ref(names.record)), 'A page of records') },
      },
    },
  };
}

/** Cold storage: read an archived record, query the archive, bring a record back. */
export function archivePaths(schema: CompiledSchema, names: SchemaComponentNames): Json {
  const tags = [schema.path];
  const base = `/api/${schema.path}`;
  const security = recordSecurity;
  const archived = {
    allOf: [
      ref(names.fields),
      { type: 'object', properties: { archived_at: { type: 'string', format: 'date-time' } } },
    ],
  };
  return {
    [`${base}/archive/query`]: {
      post: {
        tags,
        summary: 'Query archived records (its own rate limit)',
        security,
        requestBody: jsonBody(ref('ArchiveQuery')),
        responses: { '200': jsonResponse(pageOf(archived), 'Matching archived records') },
      },
    },
    [`${base}/{id}/archive`]: {
      get: {
        tags,
        summary: 'An archived record (its newest archived version, or `version`)',
        security,
        parameters: [idParameter, { name: 'version', in: 'query', schema: { type: 'integer', minimum: 1 } }],
        responses: { '200': jsonResponse(envelope(archived), 'The archived record with archived_at') },
      },
    },
    [`${base}/{id}/unarchive`]: {
      post: {
        tags,
        summary: 'Move an archived record back to hot storage with its history',
        security,
        parameters: [idParameter, idempotencyHeader],
        requestBody: jsonBody(ref('Reason')),
        responses: {
          '200': jsonResponse(envelope(ref(names.record)), 'The record, back in hot storage'),
          ...idempotent,
        },
      },
    },
  };
}

/** Full-text search (search tier 3; schemas of lower tiers answer 400). */
export function searchPaths(schema: CompiledSchema, names: SchemaComponentNames): Json {
  const tier = schema.definition.searchTier;
  const note = tier >= 3 ? {} : unavailable(`it is at search tier ${tier}; full-text search needs tier 3`);
  const hit = {
    allOf: [ref(names.fields), { type: 'object', properties: { _text_match: { type: 'number' } } }],
  };
  return {
    [`/api/${schema.path}/search`]: {
      post: {
        tags: [schema.path],
        ...note,
        summary: 'Full-text search (search rate limit)',
        security: recordSecurity,
        requestBody: jsonBody(ref('SearchRequest')),
        responses: {
          '200': jsonResponse(
            envelope({ type: 'array', items: hit }, { search_stats: ref('SearchStats') }),
            'Matching records, best first',
          ),
        },
      },
    },
  };
}
