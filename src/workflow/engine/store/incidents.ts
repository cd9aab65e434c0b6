import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { Incident } from '../runtime/index.js';
import {
  effectColumns,
  itemColumn,
  type InsertRows,
  type RowGuard,
  type MovedRows,
} from './set-wise-write.js';
import type { Tagged } from './tagged-rows.js';
import { unnestParams, type StatementBuilder } from './write-statement.js';

/*
 * `incidents`: what stopped a token (a failed job, a script error), open until resolved.
 */

/** An incident raised by an engine call, resolved already if the same call resolved it. */
export type RaisedIncident = Incident & { resolvedAt: string | null };

/** The open incidents kept by a migration, pointed at their new element. */
export const incidentMoves: MovedRows = {
  cte: 'moved_incidents',
  table: 'incidents',
  idColumn: 'id',
  elementColumn: 'activity_id',
};

/** The engine's insert of the incidents its calls raised. */
export const incidentInserts: InsertRows<RaisedIncident> = {
  cte: 'new_incidents',
  table: 'incidents',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    itemColumn('id', 'uuid', (incident) => incident.incidentId),
    itemColumn('activity_id', 'text', (incident) => incident.elementId),
    itemColumn('kind', 'text', (incident) => incident.kind),
    itemColumn('wait_id', 'uuid', (incident) => incident.waitId),
    itemColumn('message', 'text', (incident) => incident.message),
    itemColumn('created_at', 'timestamptz', (incident) => incident.createdAt),
    itemColumn('resolved_at', 'timestamptz', (incident) => incident.resolvedAt),
  ],
};

/** Adds the engine's resolution of open incidents (`ids`, tagged by instance) at each call's time. */
export function resolveIncidents(
  statement: StatementBuilder,
  guard: RowGuard,
  ids: readonly Tagged<string>[],
): void {
  if (ids.length === 0) return;
  const rows = unnestParams(statement, [
    [ids.map((row) => row.instanceId), 'uuid'],
    [ids.map((row) => row.now), 'timestamptz'],
    [ids.map((row) => row.item), 'uuid'],
  ]);
  statement.with(
    'resolved_incidents',
    `UPDATE incidents SET resolved_at = r.now
     FROM ${rows} AS r(instance_id, now, id)
     WHERE incidents.id = r.id AND incidents.resolved_at IS NULL${guard.and('r.instance_id')}`,
  );
}

/** The open incidents of an instance, oldest first. */
export async function openIncidentIds(db: Pool | PoolClient, instanceId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM incidents WHERE process_instance_id = $1 AND resolved_at IS NULL ORDER BY created_at',
    [instanceId],
  );
  return rows.map((row) => row.id);
}

/** The open incidents of several instances, oldest first, by instance. */
export async function openIncidentIdsOf(
  db: Pool | PoolClient,
  instanceIds: readonly string[],
): Promise<Map<string, string[]>> {
  const { rows } = await db.query<{ process_instance_id: string; id: string }>({
    name: 'workflow.incidents.open-of-many',
    text: `SELECT process_instance_id, id FROM incidents
           WHERE process_instance_id = ANY($1::uuid[]) AND resolved_at IS NULL ORDER BY created_at, id`,
    values: [instanceIds],
  });
  const open = new Map<string, string[]>();
  for (const row of rows)
    open.set(row.process_instance_id, [...(open.get(row.process_instance_id) ?? []), row.id]);
  return open;
}

/** An open incident as the instance detail shows it. */
export interface IncidentRecord {
  id: string;
  activity_id: string;
  kind: string;
  message: string;
  created_at: string;
}

/** An open incident of an org, with its instance, as GET /api/v1/incidents lists it. */
export interface OrgIncidentRecord extends IncidentRecord {
  process_instance_id: string;
  process_key: string;
  definition_id: string;
  business_key: string | null;
}

/** Filters of the org's open incident list; `after` is the keyset position (created_at DESC, id DESC). */
export interface IncidentFilter {
  orgId: string;
  elementId?: string | undefined;
  /** Text the message contains (case-insensitive). */
  error?: string | undefined;
  limit: number;
  after?: { at: string; id: string } | undefined;
}

/** A page of the org's open incidents, newest first, with the position of its last one when full. */
export async function listOpenIncidents(
  pool: Pool,
  filter: IncidentFilter,
): Promise<{ items: OrgIncidentRecord[]; last: { at: string; id: string } | null }> {
  const values: unknown[] = [filter.orgId];
  const where = ['i.org_id = $1::uuid', 'i.resolved_at IS NULL'];
  if (filter.elementId !== undefined) {
    values.push(filter.elementId);
    where.push(`i.activity_id = $${values.length}::text`);
  }
  if (filter.error !== undefined) {
    values.push(`%${filter.error.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`i.message ILIKE $${values.length}::text`);
  }
  if (filter.after) {
    values.push(filter.after.at, filter.after.id);
    where.push(`(i.created_at, i.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(filter.limit);
  const { rows } = await pool.query<OrgIncidentRecord & { created_at: Date; position: string }>(
    `SELECT i.id, i.activity_id, i.kind, i.message, i.created_at, i.process_instance_id,
            p.process_key, p.definition_id, p.business_key,
            to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position
     FROM incidents i JOIN process_instances p ON p.id = i.process_instance_id
     WHERE ${where.join(' AND ')}
     ORDER BY i.created_at DESC, i.id DESC LIMIT $${values.length}`,
    values,
  );
  const lastRow = rows.length === filter.limit ? rows[rows.length - 1] : undefined;
  return {
    items: rows.map(({ position: _position, created_at, ...row }) => ({
      ...row,
      created_at: created_at.toISOString(),
    })),
    last: lastRow ? { at: lastRow.position, id: lastRow.id } : null,
  };
}
