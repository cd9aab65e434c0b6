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

/*
 * The Camunda incident query (GET /engine-rest/incident): open incidents with their instance,
 * definition and org slug, each with the Camunda incident type and configuration it shows as.
 */

/**
 * An incident's Camunda type: a failed job of an element that is an external task (its model has a
 * job) is `failedExternalTask`; every other incident is `failedJob`.
 */
const incidentTypeSql = `CASE WHEN i.kind = 'jobFailed' AND (
    jsonb_typeof(d.model->'elements'->i.activity_id->'job') = 'object'
    OR jsonb_typeof(d.model->'elements'->i.activity_id->'eventDefinition'->'job') = 'object')
  THEN 'failedExternalTask' ELSE 'failedJob' END`;
/** An incident's Camunda configuration: the failed wait (an external task's id), else the incident's id. */
const configurationSql = 'coalesce(i.wait_id, i.id)::text';

/** Filters of the Camunda incident query; each one given narrows the selection. */
export interface CamundaIncidentQuery {
  /** The orgs the caller may read; undefined for all. */
  orgIds?: readonly string[] | undefined;
  ids?: readonly string[] | undefined;
  type?: 'failedJob' | 'failedExternalTask' | undefined;
  message?: string | undefined;
  /** A LIKE pattern of the message. */
  messageLike?: string | undefined;
  definitionId?: string | undefined;
  processKeys?: readonly string[] | undefined;
  processInstanceId?: string | undefined;
  activityId?: string | undefined;
  configuration?: string | undefined;
  createdBefore?: Date | undefined;
  createdAfter?: Date | undefined;
}

/** The orders of the incident query. */
export type CamundaIncidentOrder =
  | 'incidentId'
  | 'incidentMessage'
  | 'incidentTimestamp'
  | 'incidentType'
  | 'activityId'
  | 'processInstanceId'
  | 'processDefinitionId'
  | 'configuration'
  | 'tenantId';

/** An open incident as the Camunda API shows it. */
export interface CamundaIncidentView {
  id: string;
  org_id: string;
  org_slug: string | null;
  process_instance_id: string;
  definition_id: string;
  activity_id: string;
  wait_id: string | null;
  kind: string;
  incident_type: 'failedJob' | 'failedExternalTask';
  configuration: string;
  message: string;
  created_at: Date;
}

const incidentViewFrom = `
  FROM incidents i
  JOIN process_instances p ON p.id = i.process_instance_id
  JOIN process_definitions d ON d.id = p.definition_id
  LEFT JOIN orgs o ON o.id = i.org_id`;
const incidentViewColumns = `i.id, i.org_id, o.slug AS org_slug, i.process_instance_id, p.definition_id,
  i.activity_id, i.wait_id, i.kind, ${incidentTypeSql} AS incident_type, ${configurationSql} AS configuration,
  i.message, i.created_at`;

function camundaIncidentWhere(query: CamundaIncidentQuery, values: unknown[]): string {
  const conditions = ['i.resolved_at IS NULL'];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.orgIds !== undefined) conditions.push(`i.org_id = ANY(${param(query.orgIds)}::uuid[])`);
  if (query.ids !== undefined) conditions.push(`i.id = ANY(${param(query.ids)}::uuid[])`);
  if (query.type !== undefined) conditions.push(`${incidentTypeSql} = ${param(query.type)}`);
  if (query.message !== undefined) conditions.push(`i.message = ${param(query.message)}`);
  if (query.messageLike !== undefined) conditions.push(`i.message LIKE ${param(query.messageLike)}`);
  if (query.definitionId !== undefined)
    conditions.push(`p.definition_id = ${param(query.definitionId)}::uuid`);
  if (query.processKeys !== undefined)
    conditions.push(`p.process_key = ANY(${param(query.processKeys)}::text[])`);
  if (query.processInstanceId !== undefined)
    conditions.push(`i.process_instance_id = ${param(query.processInstanceId)}::uuid`);
  if (query.activityId !== undefined) conditions.push(`i.activity_id = ${param(query.activityId)}`);
  if (query.configuration !== undefined)
    conditions.push(`${configurationSql} = ${param(query.configuration)}`);
  if (query.createdBefore !== undefined) conditions.push(`i.created_at < ${param(query.createdBefore)}`);
  if (query.createdAfter !== undefined) conditions.push(`i.created_at > ${param(query.createdAfter)}`);
  return `WHERE ${conditions.join(' AND ')}`;
}

const camundaIncidentOrders: Record<CamundaIncidentOrder, string> = {
  incidentId: 'i.id',
  incidentMessage: 'i.message',
  incidentTimestamp: 'i.created_at',
  incidentType: incidentTypeSql,
  activityId: 'i.activity_id',
  processInstanceId: 'i.process_instance_id',
  processDefinitionId: 'p.definition_id',
  configuration: configurationSql,
  tenantId: 'o.slug',
};

/** A page of the open incidents a Camunda incident query selects; oldest first unless sorted otherwise. */
export async function queryCamundaIncidents(
  db: Pool | PoolClient,
  query: CamundaIncidentQuery,
  page: {
    offset: number;
    limit: number;
    order?: { by: CamundaIncidentOrder; descending: boolean } | undefined;
  },
): Promise<CamundaIncidentView[]> {
  const values: unknown[] = [];
  const where = camundaIncidentWhere(query, values);
  const direction = page.order?.descending === true ? 'DESC' : 'ASC';
  const order = `${camundaIncidentOrders[page.order?.by ?? 'incidentTimestamp']} ${direction}, i.id ${direction}`;
  values.push(page.offset, page.limit);
  const { rows } = await db.query<CamundaIncidentView>(
    `SELECT ${incidentViewColumns} ${incidentViewFrom} ${where}
     ORDER BY ${order} OFFSET $${values.length - 1} LIMIT $${values.length}`,
    values,
  );
  return rows;
}

/** How many open incidents a Camunda incident query selects. */
export async function countCamundaIncidents(
  db: Pool | PoolClient,
  query: CamundaIncidentQuery,
): Promise<number> {
  const values: unknown[] = [];
  const where = camundaIncidentWhere(query, values);
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count ${incidentViewFrom} ${where}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}
