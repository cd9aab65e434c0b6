import type { Pool, PoolClient } from '../../../platform/database/pool.js';

/*
 * Deployments as a read-only view (like definition-statistics.ts, a read over several tables; each
 * table's writes stay in its own file). weft stores versions, not deployments: a deployment is what
 * one transaction wrote, the process versions (`process_definitions`, drafts left out), DMN files
 * (`decision_deployments`) and form versions (`forms`) of one org that share their `deployed_at`
 * (the transaction's `now()`). Its id is the smallest of their ids (as text); its name is the name
 * of its versions' process group (none for DMN files and forms alone). docs/workflow/camunda7.md,
 * Deployments.
 */

type Db = Pool | PoolClient;

/** A deployment: what one transaction deployed. */
export interface DeploymentRecord {
  id: string;
  org_id: string;
  /** The org's slug. */
  tenant_id: string;
  /** The process group's name; null for a deployment of DMN files and forms only. */
  name: string | null;
  deployed_at: Date;
}

/** Filters of the deployment list (all optional; `orgIds` undefined: every org). */
export interface DeploymentQuery {
  orgIds: readonly string[] | undefined;
  id?: string | undefined;
  name?: string | undefined;
  nameLike?: string | undefined;
  after?: Date | undefined;
  before?: Date | undefined;
}

/** How a deployment list is ordered and cut. */
export interface DeploymentPage {
  sortBy: 'id' | 'name' | 'deploymentTime' | 'tenantId';
  descending: boolean;
  offset: number;
  limit: number;
}

/**
 * SQL for the id of the deployment of a row, given the SQL of its org and `deployed_at`: the
 * smallest id (as text) of the process versions, DMN files and forms deployed with it.
 */
export function deploymentIdSql(orgSql: string, atSql: string): string {
  return `(SELECT min(m.id) FROM (
             SELECT x.id::text FROM process_definitions x
             WHERE x.org_id = ${orgSql} AND x.deployed_at = ${atSql} AND NOT x.draft
             UNION ALL
             SELECT y.id::text FROM decision_deployments y WHERE y.org_id = ${orgSql} AND y.deployed_at = ${atSql}
             UNION ALL
             SELECT z.id::text FROM forms z WHERE z.org_id = ${orgSql} AND z.deployed_at = ${atSql}
           ) AS m(id))`;
}

/**
 * SQL that holds for a row (the SQL of its org and `deployed_at`) of the deployment that the
 * process version, DMN file or form `idSql` (a uuid) belongs to. Dates stay in SQL: JavaScript's
 * lose the microseconds that tell two transactions apart.
 */
export function inDeploymentOfSql(orgSql: string, atSql: string, idSql: string): string {
  return `(${orgSql}, ${atSql}) IN (
            SELECT org_id, deployed_at FROM process_definitions WHERE id = ${idSql} AND NOT draft
            UNION ALL
            SELECT org_id, deployed_at FROM decision_deployments WHERE id = ${idSql}
            UNION ALL
            SELECT org_id, deployed_at FROM forms WHERE id = ${idSql})`;
}

function deploymentsSql(query: DeploymentQuery, values: unknown[]): string {
  const param = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const orgs = query.orgIds === undefined ? 'true' : `org_id = ANY(${param(query.orgIds, 'uuid[]')})`;
  const where: string[] = [];
  if (query.id !== undefined) where.push(`d.id = ${param(query.id, 'text')}`);
  if (query.name !== undefined) where.push(`g.name = ${param(query.name, 'text')}`);
  if (query.nameLike !== undefined) where.push(`g.name LIKE ${param(query.nameLike, 'text')}`);
  if (query.after !== undefined) where.push(`d.deployed_at > ${param(query.after, 'timestamptz')}`);
  if (query.before !== undefined) where.push(`d.deployed_at < ${param(query.before, 'timestamptz')}`);
  return `WITH members AS (
            SELECT org_id, deployed_at, id::text AS id, process_group_id FROM process_definitions
            WHERE NOT draft AND ${orgs}
            UNION ALL
            SELECT org_id, deployed_at, id::text, NULL::uuid FROM decision_deployments WHERE ${orgs}
            UNION ALL
            SELECT org_id, deployed_at, id::text, NULL::uuid FROM forms WHERE ${orgs}
          ), deployments AS (
            SELECT org_id, deployed_at, min(id) AS id,
                   (array_agg(process_group_id) FILTER (WHERE process_group_id IS NOT NULL))[1] AS group_id
            FROM members GROUP BY org_id, deployed_at
          )
          SELECT d.id, d.org_id, o.slug AS tenant_id, g.name, d.deployed_at
          FROM deployments d JOIN orgs o ON o.id = d.org_id LEFT JOIN process_groups g ON g.id = d.group_id
          WHERE ${where.length === 0 ? 'true' : where.join(' AND ')}`;
}

const deploymentOrder: Record<DeploymentPage['sortBy'], string> = {
  id: 'id',
  name: 'name',
  deploymentTime: 'deployed_at',
  tenantId: 'tenant_id',
};

/** A page of deployments. */
export async function listDeployments(
  db: Db,
  query: DeploymentQuery,
  page: DeploymentPage,
): Promise<DeploymentRecord[]> {
  const values: unknown[] = [];
  const sql = deploymentsSql(query, values);
  const direction = page.descending ? 'DESC' : 'ASC';
  values.push(page.limit, page.offset);
  const { rows } = await db.query<DeploymentRecord>(
    `SELECT * FROM (${sql}) AS listed
     ORDER BY ${deploymentOrder[page.sortBy]} ${direction} NULLS LAST, id ${direction}
     LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  );
  return rows;
}

/** How many deployments match. */
export async function countDeployments(db: Db, query: DeploymentQuery): Promise<number> {
  const values: unknown[] = [];
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM (${deploymentsSql(query, values)}) AS listed`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}

/** A decision version deployed in a deployment. */
export interface DeployedDecisionRecord {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  history_time_to_live: number | null;
}

/** The decision versions a deployment (a weft id) created (its DMN files'), by key. */
export async function decisionsOfDeployment(db: Db, deploymentId: string): Promise<DeployedDecisionRecord[]> {
  const { rows } = await db.query<DeployedDecisionRecord>(
    `SELECT v.id, v.decision_key, v.version, k.name, v.history_time_to_live
     FROM decision_deployments x
     JOIN decision_versions v ON v.deployment_id = x.id
     JOIN decision_keys k ON k.org_id = v.org_id AND k.decision_key = v.decision_key
     WHERE ${inDeploymentOfSql('x.org_id', 'x.deployed_at', '$1::uuid')}
     ORDER BY v.decision_key`,
    [deploymentId],
  );
  return rows;
}

/**
 * The id of the deployment a process version, DMN file, decision version or form version (a weft
 * id) belongs to; null when none.
 */
export async function deploymentIdOf(db: Db, memberId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string | null }>(
    `SELECT ${deploymentIdSql('m.org_id', 'm.deployed_at')} AS id FROM (
       SELECT org_id, deployed_at FROM process_definitions WHERE id = $1::uuid AND NOT draft
       UNION ALL
       SELECT org_id, deployed_at FROM decision_deployments WHERE id = $1::uuid
       UNION ALL
       SELECT x.org_id, x.deployed_at FROM decision_versions v JOIN decision_deployments x ON x.id = v.deployment_id
       WHERE v.id = $1::uuid
       UNION ALL
       SELECT org_id, deployed_at FROM forms WHERE id = $1::uuid
     ) AS m LIMIT 1`,
    [memberId],
  );
  return rows[0]?.id ?? null;
}
