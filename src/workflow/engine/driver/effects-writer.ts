import type { PoolClient } from '../../../platform/database/pool.js';
import type { Effect, HistoryEntry, Incident, Wait } from '../runtime/index.js';

/** The instance whose effects are written. */
export interface EffectTarget {
  instanceId: string;
  orgId: string;
  /** The engine call's time (ISO), for rows the engine does not stamp itself. */
  now: string;
}

/** What the caller does after commit, and what metrics count. */
export interface WrittenEffects {
  /** Topics that gained fetchable external tasks (to wake long-polling workers). */
  topics: Set<string>;
  externalTasksCreated: number;
  userTasksCreated: number;
  incidentsRaised: number;
}

type ExternalTaskWait = Extract<Wait, { kind: 'externalTask' }>;
type UserTaskWait = Extract<Wait, { kind: 'userTask' }>;

/**
 * Persists one engine call's effects in the caller's transaction, each kind in one statement. A
 * wait opened and closed within the same call (a boundary interrupting at once) never reaches a
 * table, so the writes are the net change.
 */
export async function writeEffects(
  client: PoolClient,
  target: EffectTarget,
  effects: readonly Effect[],
): Promise<WrittenEffects> {
  const newExternal = new Map<string, ExternalTaskWait>();
  const newUser = new Map<string, UserTaskWait>();
  const closedWaits: string[] = [];
  const newIncidents = new Map<string, Incident & { resolvedAt: string | null }>();
  const resolvedIncidents: string[] = [];
  const history: HistoryEntry[] = [];

  for (const effect of effects) {
    switch (effect.type) {
      case 'waitOpened':
        if (effect.wait.kind === 'externalTask') newExternal.set(effect.wait.waitId, effect.wait);
        else if (effect.wait.kind === 'userTask') newUser.set(effect.wait.waitId, effect.wait);
        break;
      case 'waitClosed':
        if (!newExternal.delete(effect.waitId) && !newUser.delete(effect.waitId))
          closedWaits.push(effect.waitId);
        break;
      case 'incidentRaised':
        newIncidents.set(effect.incident.incidentId, { ...effect.incident, resolvedAt: null });
        break;
      case 'incidentResolved': {
        const pending = newIncidents.get(effect.incidentId);
        if (pending) pending.resolvedAt = target.now;
        else resolvedIncidents.push(effect.incidentId);
        break;
      }
      case 'history':
        history.push(effect.entry);
        break;
      default:
        break;
    }
  }

  if (closedWaits.length > 0) {
    await client.query({
      name: 'workflow.effects.close-waits',
      text: `WITH e AS (DELETE FROM external_tasks WHERE id = ANY($1::uuid[]) AND process_instance_id = $2)
             DELETE FROM user_tasks WHERE id = ANY($1::uuid[]) AND process_instance_id = $2`,
      values: [closedWaits, target.instanceId],
    });
  }
  if (newExternal.size > 0) {
    const waits = [...newExternal.values()];
    await client.query({
      name: 'workflow.effects.insert-external-tasks',
      text: `INSERT INTO external_tasks (id, org_id, process_instance_id, activity_id, topic, variables, retries)
             SELECT w.id, $1, $2, w.activity_id, w.topic, w.variables, w.retries
             FROM unnest($3::uuid[], $4::text[], $5::text[], $6::jsonb[], $7::int[])
               AS w(id, activity_id, topic, variables, retries)`,
      values: [
        target.orgId,
        target.instanceId,
        waits.map((w) => w.waitId),
        waits.map((w) => w.elementId),
        waits.map((w) => w.topic),
        waits.map((w) => JSON.stringify(w.variables)),
        waits.map((w) => w.retries),
      ],
    });
  }
  if (newUser.size > 0) {
    const waits = [...newUser.values()];
    await client.query({
      name: 'workflow.effects.insert-user-tasks',
      text: `INSERT INTO user_tasks (id, org_id, process_instance_id, activity_id, name, assignee, candidate_groups, variables)
             SELECT w.id, $1, $2, w.activity_id, w.name, w.assignee,
                    ARRAY(SELECT jsonb_array_elements_text(w.groups)), w.variables
             FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[])
               AS w(id, activity_id, name, assignee, groups, variables)`,
      values: [
        target.orgId,
        target.instanceId,
        waits.map((w) => w.waitId),
        waits.map((w) => w.elementId),
        waits.map((w) => w.name),
        waits.map((w) => w.assignee),
        waits.map((w) => JSON.stringify(w.candidateGroups)),
        waits.map((w) => JSON.stringify(w.variables)),
      ],
    });
  }
  if (newIncidents.size > 0) {
    const incidents = [...newIncidents.values()];
    await client.query({
      name: 'workflow.effects.insert-incidents',
      text: `INSERT INTO incidents (id, org_id, process_instance_id, activity_id, kind, wait_id, message, created_at, resolved_at)
             SELECT i.id, $1, $2, i.activity_id, i.kind, i.wait_id, i.message, i.created_at, i.resolved_at
             FROM unnest($3::uuid[], $4::text[], $5::text[], $6::uuid[], $7::text[], $8::timestamptz[], $9::timestamptz[])
               AS i(id, activity_id, kind, wait_id, message, created_at, resolved_at)`,
      values: [
        target.orgId,
        target.instanceId,
        incidents.map((i) => i.incidentId),
        incidents.map((i) => i.elementId),
        incidents.map((i) => i.kind),
        incidents.map((i) => i.waitId),
        incidents.map((i) => i.message),
        incidents.map((i) => i.createdAt),
        incidents.map((i) => i.resolvedAt),
      ],
    });
  }
  if (resolvedIncidents.length > 0) {
    await client.query(
      'UPDATE incidents SET resolved_at = $2 WHERE id = ANY($1::uuid[]) AND resolved_at IS NULL',
      [resolvedIncidents, target.now],
    );
  }
  if (history.length > 0) {
    await client.query({
      name: 'workflow.effects.insert-history',
      text: `INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
             SELECT $1, h.kind, h.element_id, h.element_type, h.token_id, h.at, h.data
             FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::jsonb[])
               WITH ORDINALITY AS h(kind, element_id, element_type, token_id, at, data, n)
             ORDER BY h.n`,
      values: [
        target.instanceId,
        history.map((h) => h.kind),
        history.map((h) => h.elementId),
        history.map((h) => h.elementType),
        history.map((h) => h.tokenId),
        history.map((h) => h.at),
        history.map((h) => JSON.stringify(h.data)),
      ],
    });
  }
  return {
    topics: new Set([...newExternal.values()].map((w) => w.topic)),
    externalTasksCreated: newExternal.size,
    userTasksCreated: newUser.size,
    incidentsRaised: newIncidents.size,
  };
}
