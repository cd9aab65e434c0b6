import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Queryable } from '../../platform/database/queryable.js';

/** A pool or a connection inside a transaction: anything that runs a query. */

/** A decision version as listed. */
export interface DecisionVersionRecord {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  /** Its `camunda:historyTimeToLive` in days, kept and shown (no decision history is stored). */
  history_time_to_live: number | null;
  deployed_at: string;
}

interface DecisionVersionRow extends Omit<DecisionVersionRecord, 'deployed_at'> {
  deployed_at: Date;
}

function toRecord(row: DecisionVersionRow): DecisionVersionRecord {
  return { ...row, deployed_at: row.deployed_at.toISOString() };
}

/** A stored version of a key, with what a deploy compares and an evaluation loads. */
export interface StoredVersion {
  id: string;
  version: number;
  deployment_id: string;
  content_hash: string;
  history_time_to_live: number | null;
  deployed_at: Date;
}

/**
 * Creates the key if new, and locks its row until the transaction ends, so concurrent deploys of the
 * key take versions one after the other. Returns the latest version (0 for a new key) and the name.
 * A missing organisation surfaces as error 23503.
 */
export async function lockDecisionKey(
  client: PoolClient,
  orgId: string,
  decisionKey: string,
  name: string,
): Promise<{ latest_version: number; name: string }> {
  // The no-op DO UPDATE is what takes the row lock when the key exists.
  const { rows } = await client.query<{ latest_version: number; name: string }>(
    `INSERT INTO decision_keys (org_id, decision_key, name, latest_version) VALUES ($1, $2, $3, 0)
     ON CONFLICT (org_id, decision_key) DO UPDATE SET latest_version = decision_keys.latest_version
     RETURNING latest_version, name`,
    [orgId, decisionKey, name],
  );
  return firstRow(rows);
}

/** One version of a key, or null. */
export async function findVersion(
  db: Queryable,
  orgId: string,
  decisionKey: string,
  version: number,
): Promise<StoredVersion | null> {
  const { rows } = await db.query<StoredVersion>(
    `SELECT id, version, deployment_id, content_hash, history_time_to_live, deployed_at FROM decision_versions
     WHERE org_id = $1 AND decision_key = $2 AND version = $3`,
    [orgId, decisionKey, version],
  );
  return rows[0] ?? null;
}

/** Stores an uploaded DMN file; returns its id. */
export async function insertDeployment(
  client: PoolClient,
  orgId: string,
  xml: string,
  deployedBy: string,
): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO decision_deployments (org_id, xml, deployed_by) VALUES ($1, $2, $3) RETURNING id`,
    [orgId, xml, deployedBy],
  );
  return firstRow(rows).id;
}

/** Adds version `version` of a locked key and makes it the key's latest, with the name of the file. */
export async function insertVersion(
  client: PoolClient,
  row: {
    orgId: string;
    decisionKey: string;
    version: number;
    name: string;
    deploymentId: string;
    contentHash: string;
    historyTimeToLive: number | null;
  },
): Promise<DecisionVersionRecord> {
  const { rows } = await client.query<DecisionVersionRow>(
    `WITH key AS (
       UPDATE decision_keys SET latest_version = $3, name = $4
       WHERE org_id = $1 AND decision_key = $2
       RETURNING org_id, decision_key, name
     )
     INSERT INTO decision_versions (org_id, decision_key, version, deployment_id, content_hash, history_time_to_live)
     SELECT org_id, decision_key, $3, $5, $6, $7 FROM key
     RETURNING id, decision_key, version, $4::text AS name, history_time_to_live, deployed_at`,
    [
      row.orgId,
      row.decisionKey,
      row.version,
      row.name,
      row.deploymentId,
      row.contentHash,
      row.historyTimeToLive,
    ],
  );
  return toRecord(firstRow(rows));
}

/** The latest version of each key, or every version; by key, newest version first. */
export async function listDecisions(
  pool: Pool,
  orgId: string,
  allVersions: boolean,
): Promise<DecisionVersionRecord[]> {
  const { rows } = await pool.query<DecisionVersionRow>(
    `SELECT v.id, v.decision_key, v.version, k.name, v.history_time_to_live, v.deployed_at
     FROM decision_keys k
     JOIN decision_versions v ON v.org_id = k.org_id AND v.decision_key = k.decision_key
     WHERE k.org_id = $1 AND ($2 OR v.version = k.latest_version)
     ORDER BY v.decision_key, v.version DESC`,
    [orgId, allVersions],
  );
  return rows.map(toRecord);
}

/** Renames a key, and so every version of it; false when the key does not exist. */
export async function renameDecisionKey(
  pool: Pool,
  orgId: string,
  decisionKey: string,
  name: string,
): Promise<boolean> {
  const { rowCount } = await pool.query(
    'UPDATE decision_keys SET name = $3 WHERE org_id = $1 AND decision_key = $2',
    [orgId, decisionKey, name],
  );
  return rowCount === 1;
}

/** What an evaluation needs to find its compiled model. */
export interface ResolvedVersion {
  id: string;
  version: number;
  deployment_id: string;
}

/** Version `version` of a key, or its latest when null; null when there is no such key or version. */
export async function resolveVersion(
  db: Queryable,
  orgId: string,
  decisionKey: string,
  version: number | null,
): Promise<ResolvedVersion | null> {
  const { rows } = await db.query<ResolvedVersion>({
    name: 'decisions-resolve-version',
    text: `SELECT v.id, v.version, v.deployment_id
           FROM decision_keys k
           JOIN decision_versions v ON v.org_id = k.org_id AND v.decision_key = k.decision_key
             AND v.version = COALESCE($3::integer, k.latest_version)
           WHERE k.org_id = $1 AND k.decision_key = $2`,
    values: [orgId, decisionKey, version],
  });
  return rows[0] ?? null;
}

/** The XML of a deployment, or null. */
export async function deploymentXml(db: Queryable, deploymentId: string): Promise<string | null> {
  const { rows } = await db.query<{ xml: string }>('SELECT xml FROM decision_deployments WHERE id = $1', [
    deploymentId,
  ]);
  return rows[0]?.xml ?? null;
}

/** A version of a key with the DMN file it came from. */
export interface DecisionVersionXml {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  xml: string;
}

/** Version `version` of a key (its latest when null) with its file's XML; null when there is none. */
export async function findVersionXml(
  db: Queryable,
  orgId: string,
  decisionKey: string,
  version: number | null,
): Promise<DecisionVersionXml | null> {
  const { rows } = await db.query<DecisionVersionXml>(
    `SELECT v.id, v.decision_key, v.version, k.name, d.xml
     FROM decision_keys k
     JOIN decision_versions v ON v.org_id = k.org_id AND v.decision_key = k.decision_key
       AND v.version = COALESCE($3::integer, k.latest_version)
     JOIN decision_deployments d ON d.id = v.deployment_id
     WHERE k.org_id = $1 AND k.decision_key = $2`,
    [orgId, decisionKey, version],
  );
  return rows[0] ?? null;
}

/*
 * The Camunda decision-definition query (GET /engine-rest/decision-definition): versions across the
 * orgs a caller may read, with their org's slug.
 */

/** Filters of the decision-definition query; each one given narrows the selection. */
export interface DecisionVersionQuery {
  /** The orgs the caller may read; undefined for all. */
  orgIds?: readonly string[] | undefined;
  ids?: readonly string[] | undefined;
  key?: string | undefined;
  /** A LIKE pattern of the key. */
  keyLike?: string | undefined;
  name?: string | undefined;
  /** A LIKE pattern of the name. */
  nameLike?: string | undefined;
  version?: number | undefined;
  latestVersion?: boolean | undefined;
  deploymentId?: string | undefined;
}

/** The orders of the decision-definition query. */
export type DecisionVersionOrder = 'key' | 'id' | 'name' | 'version' | 'tenantId' | 'deploymentId';

/** A decision version as the Camunda API shows it. */
export interface DecisionVersionView {
  id: string;
  org_id: string;
  org_slug: string | null;
  decision_key: string;
  version: number;
  name: string;
  deployment_id: string;
  latest: boolean;
  history_time_to_live: number | null;
}

const decisionViewFrom = `
  FROM decision_versions v
  JOIN decision_keys k ON k.org_id = v.org_id AND k.decision_key = v.decision_key
  LEFT JOIN orgs o ON o.id = v.org_id`;
const decisionViewColumns = `v.id, v.org_id, o.slug AS org_slug, v.decision_key, v.version, k.name,
  v.deployment_id, v.version = k.latest_version AS latest, v.history_time_to_live`;

function decisionVersionWhere(query: DecisionVersionQuery, values: unknown[]): string {
  const conditions: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.orgIds !== undefined) conditions.push(`v.org_id = ANY(${param(query.orgIds)}::uuid[])`);
  if (query.ids !== undefined) conditions.push(`v.id = ANY(${param(query.ids)}::uuid[])`);
  if (query.key !== undefined) conditions.push(`v.decision_key = ${param(query.key)}`);
  if (query.keyLike !== undefined) conditions.push(`v.decision_key LIKE ${param(query.keyLike)}`);
  if (query.name !== undefined) conditions.push(`k.name = ${param(query.name)}`);
  if (query.nameLike !== undefined) conditions.push(`k.name LIKE ${param(query.nameLike)}`);
  if (query.version !== undefined) conditions.push(`v.version = ${param(query.version)}`);
  if (query.latestVersion === true) conditions.push('v.version = k.latest_version');
  if (query.deploymentId !== undefined)
    conditions.push(`v.deployment_id = ${param(query.deploymentId)}::uuid`);
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}

const decisionVersionOrders: Record<DecisionVersionOrder, string> = {
  key: 'v.decision_key',
  id: 'v.id',
  name: 'k.name',
  version: 'v.version',
  tenantId: 'o.slug',
  deploymentId: 'v.deployment_id',
};

/** A page of the versions a decision-definition query selects; by key and version unless sorted otherwise. */
export async function queryDecisionVersions(
  db: Queryable,
  query: DecisionVersionQuery,
  page: {
    offset: number;
    limit: number;
    order?: { by: DecisionVersionOrder; descending: boolean } | undefined;
  },
): Promise<DecisionVersionView[]> {
  const values: unknown[] = [];
  const where = decisionVersionWhere(query, values);
  const order =
    page.order === undefined
      ? 'v.decision_key, o.slug, v.version'
      : `${decisionVersionOrders[page.order.by]} ${page.order.descending ? 'DESC' : 'ASC'}, v.id`;
  values.push(page.offset, page.limit);
  const { rows } = await db.query<DecisionVersionView>(
    `SELECT ${decisionViewColumns} ${decisionViewFrom} ${where}
     ORDER BY ${order} OFFSET $${values.length - 1} LIMIT $${values.length}`,
    values,
  );
  return rows;
}

/** How many versions a decision-definition query selects. */
export async function countDecisionVersions(db: Queryable, query: DecisionVersionQuery): Promise<number> {
  const values: unknown[] = [];
  const where = decisionVersionWhere(query, values);
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count ${decisionViewFrom} ${where}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}

function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('the statement returned no row');
  return row;
}
