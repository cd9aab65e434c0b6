import type { Pool } from '../../platform/database/pool.js';
import type { InstanceState } from '../engine/runtime/index.js';
import { toInstanceRecord, type InstanceRecord } from '../engine/driver/instance-repository.js';

/** Filters of the instance list (the spec's parameters plus state and business key). */
export interface InstanceFilter {
  orgId: string;
  definitionId?: string | undefined;
  processKey?: string | undefined;
  state?: string | undefined;
  businessKey?: string | undefined;
  limit: number;
  offset: number;
}

/** One page of instances, newest first, with the total count of the filter. */
export async function listInstances(
  pool: Pool,
  filter: InstanceFilter,
): Promise<{ items: InstanceRecord[]; total: number }> {
  const { rows } = await pool.query<Parameters<typeof toInstanceRecord>[0] & { total: string }>({
    name: 'workflow.instances.list',
    text: `SELECT id, org_id, counter, process_key, definition_id, state, business_key, variables, started_at, ended_at,
                  parent_instance_id, count(*) OVER () AS total
           FROM process_instances
           WHERE org_id = $1
             AND ($2::uuid IS NULL OR definition_id = $2)
             AND ($3::text IS NULL OR process_key = $3)
             AND ($4::text IS NULL OR state = $4)
             AND ($5::text IS NULL OR business_key = $5)
           ORDER BY started_at DESC, id DESC
           LIMIT $6 OFFSET $7`,
    values: [
      filter.orgId,
      filter.definitionId ?? null,
      filter.processKey ?? null,
      filter.state ?? null,
      filter.businessKey ?? null,
      filter.limit,
      filter.offset,
    ],
  });
  if (rows.length === 0 && filter.offset > 0) {
    // Past the end of the list the window function has no row to report the total on.
    const { rows: counted } = await pool.query<{ total: string }>(
      `SELECT count(*) AS total FROM process_instances
       WHERE org_id = $1 AND ($2::uuid IS NULL OR definition_id = $2) AND ($3::text IS NULL OR process_key = $3)
         AND ($4::text IS NULL OR state = $4) AND ($5::text IS NULL OR business_key = $5)`,
      [
        filter.orgId,
        filter.definitionId ?? null,
        filter.processKey ?? null,
        filter.state ?? null,
        filter.businessKey ?? null,
      ],
    );
    return { items: [], total: Number(counted[0]?.total ?? 0) };
  }
  return {
    items: rows.map(({ total: _total, ...row }) => toInstanceRecord(row)),
    total: Number(rows[0]?.total ?? 0),
  };
}

/** An open incident as the instance detail shows it. */
export interface IncidentRecord {
  id: string;
  activity_id: string;
  kind: string;
  message: string;
  created_at: string;
}

/** The engine state and open incidents of an instance. */
export async function instanceDetail(
  pool: Pool,
  id: string,
): Promise<{ engineState: InstanceState; incidents: IncidentRecord[] } | null> {
  const { rows } = await pool.query<{ engine_state: InstanceState; incidents: IncidentRecord[] }>(
    `SELECT engine_state,
            COALESCE((SELECT json_agg(json_build_object('id', i.id, 'activity_id', i.activity_id, 'kind', i.kind,
                                                         'message', i.message, 'created_at', i.created_at)
                                      ORDER BY i.created_at)
                      FROM incidents i WHERE i.process_instance_id = p.id AND i.resolved_at IS NULL), '[]') AS incidents
     FROM process_instances p WHERE p.id = $1`,
    [id],
  );
  return rows[0] ? { engineState: rows[0].engine_state, incidents: rows[0].incidents } : null;
}

/** A history row as the API shows it. */
export interface HistoryRecord {
  id: number;
  kind: string;
  element_id: string;
  element_type: string;
  token_id: string | null;
  at: string;
  data: Record<string, unknown>;
}

/** The execution history of an instance, oldest first. */
export async function instanceHistory(pool: Pool, id: string): Promise<HistoryRecord[]> {
  const { rows } = await pool.query<Omit<HistoryRecord, 'id' | 'at'> & { id: string; at: Date }>(
    `SELECT id, kind, element_id, element_type, token_id, at, data FROM process_history
     WHERE process_instance_id = $1 ORDER BY id`,
    [id],
  );
  return rows.map((row) => ({ ...row, id: Number(row.id), at: row.at.toISOString() }));
}
