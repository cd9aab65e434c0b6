import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RecordPage } from '../records/select-records.js';
import type { SelectPlan } from '../records/select-plan.js';
import { successBody } from './envelope.js';

/**
 * Sends a page of records (each row already JSON text) in the success envelope with its
 * `pagination` (limit, offset and total for offset pages, cursor and has_more) and, when given,
 * the `included` records of an `include` parameter.
 */
export function sendRecordPage(
  reply: FastifyReply,
  request: FastifyRequest,
  plan: SelectPlan,
  page: RecordPage,
  included?: string,
) {
  const pagination: Record<string, unknown> = { limit: plan.limit };
  if (plan.offset !== undefined) Object.assign(pagination, { offset: plan.offset, total: page.total });
  Object.assign(pagination, { cursor: page.cursor, has_more: page.hasMore });
  const extra = `,"pagination":${JSON.stringify(pagination)}${included !== undefined ? `,"included":${included}` : ''}`;
  return reply.type('application/json').send(successBody(`[${page.rows.join(',')}]`, request.id, extra));
}
