import type { FastifyReply } from 'fastify';
import type { WriteResult } from '../records/write-pipeline.js';

/** Sends a write's response: its status and body, `idempotent-replayed: true` on a replay. */
export function sendWriteResult(reply: FastifyReply, result: WriteResult): FastifyReply {
  if (result.replayed) void reply.header('idempotent-replayed', 'true');
  void reply.status(result.response.status);
  if (result.response.status === 204) return reply.send();
  return reply.type('application/json').send(result.response.body);
}
