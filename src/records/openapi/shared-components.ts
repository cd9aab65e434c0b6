import type { Json } from './openapi-parts.js';

const timestamp = { type: 'string', format: 'date-time' };
const anyObject = { type: 'object', additionalProperties: true };
const nullableObject = { type: 'object', additionalProperties: true, nullable: true };

/** Component schemas every schema's routes and the platform routes share. */
export const sharedComponents: Json = {
  RecordsError: {
    type: 'object',
    required: ['code', 'message', 'requestId', 'details'],
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      requestId: { type: 'string' },
      details: anyObject,
    },
  },
  Pagination: {
    type: 'object',
    properties: {
      limit: { type: 'integer' },
      offset: { type: 'integer' },
      total: { type: 'integer' },
      cursor: { type: 'string', nullable: true },
      has_more: { type: 'boolean' },
    },
  },
  Query: {
    type: 'object',
    properties: {
      where: { ...anyObject, description: '{field, op, value} or {and|or: [...]} or {not: {...}}' },
      select: { type: 'array', items: { type: 'string' } },
      sort: {
        type: 'array',
        items: {
          type: 'object',
          properties: { field: { type: 'string' }, direction: { type: 'string', enum: ['asc', 'desc'] } },
        },
      },
      limit: { type: 'integer', minimum: 1 },
      cursor: { type: 'string' },
    },
  },
  ArchiveQuery: {
    type: 'object',
    properties: {
      where: anyObject,
      select: { type: 'array', items: { type: 'string' } },
      limit: { type: 'integer', minimum: 1 },
    },
  },
  SearchRequest: {
    type: 'object',
    required: ['q'],
    properties: {
      q: { type: 'string', minLength: 1, maxLength: 500 },
      filter_by: { type: 'string', description: 'field:=v clauses joined by &&' },
      sort_by: { type: 'string', description: 'field:asc|desc, … (and _text_match)' },
      limit: { type: 'integer', minimum: 1 },
    },
  },
  SearchStats: {
    type: 'object',
    required: ['total_hits', 'took_ms'],
    properties: { total_hits: { type: 'integer' }, took_ms: { type: 'integer' } },
  },
  OrgSearchHit: {
    type: 'object',
    required: ['schema', 'id', 'fields'],
    properties: { schema: { type: 'string' }, id: { type: 'string', format: 'uuid' }, fields: anyObject },
  },
  InstantAndReason: {
    type: 'object',
    required: ['at', 'reason'],
    properties: { at: timestamp, reason: { type: 'string', minLength: 1, maxLength: 2000 } },
    additionalProperties: false,
  },
  Reason: {
    type: 'object',
    required: ['reason'],
    properties: { reason: { type: 'string', minLength: 1, maxLength: 2000 } },
    additionalProperties: false,
  },
  HistoryEvent: {
    type: 'object',
    required: ['event_id', 'timestamp', 'actor', 'operation', 'old_value', 'new_value'],
    properties: {
      event_id: { type: 'integer' },
      timestamp,
      actor: { type: 'string' },
      operation: { type: 'string' },
      old_value: nullableObject,
      new_value: nullableObject,
      reason: { type: 'string' },
    },
  },
  Diff: {
    type: 'object',
    required: ['added', 'changed', 'removed'],
    properties: {
      added: anyObject,
      changed: {
        type: 'object',
        additionalProperties: { type: 'object', required: ['from', 'to'], properties: { from: {}, to: {} } },
      },
      removed: anyObject,
    },
  },
  Snapshot: {
    type: 'object',
    required: ['snapshot_id', 'schema', 'timestamp', 'status'],
    properties: {
      snapshot_id: { type: 'string', format: 'uuid' },
      schema: { type: 'string' },
      timestamp,
      status: { type: 'string', enum: ['in_progress', 'completed', 'failed'] },
      row_count: { type: 'integer' },
      error: { type: 'string' },
    },
  },
  AuditEvent: {
    type: 'object',
    required: ['event_id', 'timestamp', 'actor', 'schema', 'entity_id', 'operation', 'hash'],
    properties: {
      event_id: { type: 'integer' },
      timestamp,
      actor: { type: 'string' },
      schema: { type: 'string' },
      entity_id: { type: 'string', format: 'uuid' },
      operation: { type: 'string' },
      version: { type: 'integer' },
      old_value: nullableObject,
      new_value: nullableObject,
      previous_hash: { type: 'string' },
      hash: { type: 'string' },
      history_event_id: { type: 'integer' },
      history_hash: { type: 'string' },
    },
  },
  AuditVerifyRequest: {
    type: 'object',
    required: ['schema', 'id'],
    properties: { schema: { type: 'string' }, id: { type: 'string', format: 'uuid' } },
    additionalProperties: false,
  },
  AuditVerification: {
    type: 'object',
    required: ['valid', 'events', 'tampering_detected'],
    properties: {
      valid: { type: 'boolean' },
      events: { type: 'integer' },
      tampering_detected: { type: 'integer' },
      tampered: { type: 'array', items: anyObject },
      anchored: { type: 'boolean' },
      anchor: anyObject,
      legacy_history_rows: { type: 'integer' },
    },
  },
};
