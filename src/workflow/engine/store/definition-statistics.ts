import type { Pool } from '../../../platform/database/pool.js';

/*
 * Read-only counts over `process_instances` and `incidents` per deployed version, for the console's
 * process pages. Nothing here writes; the engine's own tables stay the single source.
 */

/** How many instances of a version are in each state. */
export interface InstanceCounts {
  running: number;
  incident: number;
  completed: number;
  cancelled: number;
  terminated: number;
}

/** Live tokens and open incidents of one element, over the open instances of a version. */
export interface ElementCounts {
  element_id: string;
  active: number;
  incidents: number;
}

const states = ['running', 'incident', 'completed', 'cancelled', 'terminated'] as const;

function emptyCounts(): InstanceCounts {
  return { running: 0, incident: 0, completed: 0, cancelled: 0, terminated: 0 };
}

function addCount(counts: InstanceCounts, state: string, n: number): void {
  if ((states as readonly string[]).includes(state)) counts[state as keyof InstanceCounts] += n;
}

/** Instance counts of one version. */
export async function instanceCountsOfDefinition(pool: Pool, definitionId: string): Promise<InstanceCounts> {
  const { rows } = await pool.query<{ state: string; n: number }>(
    `SELECT state, count(*)::int AS n FROM process_instances WHERE definition_id = $1 GROUP BY state`,
    [definitionId],
  );
  const counts = emptyCounts();
  for (const row of rows) addCount(counts, row.state, row.n);
  return counts;
}

/** Instance counts of every version of an org (or of one key) that has instances. */
export async function instanceCountsOfOrg(
  pool: Pool,
  orgId: string,
  processKey: string | undefined,
): Promise<(InstanceCounts & { definition_id: string })[]> {
  const { rows } = await pool.query<{ definition_id: string; state: string; n: number }>(
    `SELECT definition_id, state, count(*)::int AS n FROM process_instances
     WHERE org_id = $1 AND ($2::text IS NULL OR process_key = $2)
     GROUP BY definition_id, state`,
    [orgId, processKey ?? null],
  );
  const byDefinition = new Map<string, InstanceCounts & { definition_id: string }>();
  for (const row of rows) {
    let counts = byDefinition.get(row.definition_id);
    if (!counts) {
      counts = { definition_id: row.definition_id, ...emptyCounts() };
      byDefinition.set(row.definition_id, counts);
    }
    addCount(counts, row.state, row.n);
  }
  return [...byDefinition.values()].sort((a, b) => a.definition_id.localeCompare(b.definition_id));
}

/**
 * Per element of a version: the tokens that wait, join or failed there (the instance detail's
 * `tokens`), and the open incidents raised there, over its running and incident instances.
 */
export async function elementCountsOfDefinition(pool: Pool, definitionId: string): Promise<ElementCounts[]> {
  const { rows } = await pool.query<ElementCounts>(
    `WITH open_instances AS (
       SELECT id, engine_state FROM process_instances
       WHERE definition_id = $1 AND state IN ('running', 'incident')
     ),
     tokens AS (
       SELECT t.value->>'elementId' AS element_id, count(*)::int AS active
       FROM open_instances i, jsonb_each(i.engine_state->'tokens') AS t
       WHERE t.value->>'phase' <> 'active'
       GROUP BY 1
     ),
     open_incidents AS (
       SELECT n.activity_id AS element_id, count(*)::int AS incidents
       FROM incidents n JOIN open_instances i ON i.id = n.process_instance_id
       WHERE n.resolved_at IS NULL
       GROUP BY 1
     )
     SELECT element_id, coalesce(t.active, 0) AS active, coalesce(o.incidents, 0) AS incidents
     FROM tokens t FULL JOIN open_incidents o USING (element_id)
     ORDER BY element_id`,
    [definitionId],
  );
  return rows;
}
