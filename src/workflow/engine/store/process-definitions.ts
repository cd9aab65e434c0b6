import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { ProcessModel } from '../model/index.js';
import { deploymentIdSql, inDeploymentOfSql } from './deployment-view.js';

/*
 * `process_definitions`: deployed versions and drafts of process keys, with their XML and compiled
 * model. The key's counters are in `process_keys` (process-keys.ts).
 */

/** A deployed version or draft as the API shows it. */
export interface DefinitionRecord {
  id: string;
  org_id: string;
  process_group_id: string;
  process_key: string;
  version: number | null;
  name: string;
  disabled: boolean;
  draft: boolean;
  /** Suspended by an operator: starts no instance (migration 0019). */
  suspended: boolean;
  /**
   * Days after an instance's end that its history is kept (Camunda's `historyTimeToLive`); null:
   * the global retention (migration 0023).
   */
  history_time_to_live: number | null;
  deployed_at: string;
}

interface DefinitionRow extends Omit<DefinitionRecord, 'deployed_at'> {
  deployed_at: Date;
}

const columns =
  'id, org_id, process_group_id, process_key, version, name, disabled, draft, suspended, history_time_to_live, deployed_at';

function toRecord(row: DefinitionRow): DefinitionRecord {
  return { ...row, deployed_at: row.deployed_at.toISOString() };
}

type Db = Pool | PoolClient;

/** The latest deployed (non-draft) version of a key: its id, content hash and draft flag. */
export async function findLatestDeployed(
  db: PoolClient,
  orgId: string,
  processKey: string,
): Promise<{ id: string; contentHash: string; draft: boolean } | null> {
  const latest = await db.query<{ id: string; content_hash: string; draft: boolean }>(
    `SELECT id, content_hash, draft FROM process_definitions
     WHERE org_id = $1 AND process_key = $2 AND NOT draft ORDER BY version DESC LIMIT 1`,
    [orgId, processKey],
  );
  const row = latest.rows[0];
  return row ? { id: row.id, contentHash: row.content_hash, draft: row.draft } : null;
}

/**
 * Inserts a version (`version` set) or a draft (`version` null); the caller has advanced the key's
 * version counter (setLastVersion) in the same transaction.
 */
export async function insertDefinition(
  db: PoolClient,
  input: {
    orgId: string;
    processGroupId: string;
    processKey: string;
    version: number | null;
    name: string;
    xml: string;
    contentHash: string;
    model: ProcessModel;
  },
): Promise<DefinitionRecord> {
  const { rows } = await db.query<DefinitionRow>(
    `INSERT INTO process_definitions
       (org_id, process_group_id, process_key, version, draft, name, xml, content_hash, model,
        history_time_to_live)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING ${columns}`,
    [
      input.orgId,
      input.processGroupId,
      input.processKey,
      input.version,
      input.version === null,
      input.name,
      input.xml,
      input.contentHash,
      JSON.stringify(input.model),
      input.model.historyTimeToLive ?? null,
    ],
  );
  return toRecord(firstRow(rows));
}

/** One definition, optionally with its XML. */
export async function findDefinition(
  db: Db,
  id: string,
): Promise<(DefinitionRecord & { xml: string }) | null> {
  const { rows } = await db.query<DefinitionRow & { xml: string }>(
    `SELECT ${columns}, xml FROM process_definitions WHERE id = $1`,
    [id],
  );
  return rows[0] ? { ...toRecord(rows[0]), xml: rows[0].xml } : null;
}

/** Definitions of an org, newest first, optionally of one key. */
export async function listDefinitions(
  db: Db,
  orgId: string,
  processKey: string | undefined,
): Promise<DefinitionRecord[]> {
  const { rows } = await db.query<DefinitionRow>(
    `SELECT ${columns} FROM process_definitions
     WHERE org_id = $1 AND ($2::text IS NULL OR process_key = $2)
     ORDER BY deployed_at DESC, version DESC NULLS FIRST, id`,
    [orgId, processKey ?? null],
  );
  return rows.map(toRecord);
}

/**
 * Sets the disabled flag of a non-draft definition; returns it with the flag it had before (the row
 * is locked first, so two concurrent toggles see each other's outcome), or null when absent.
 */
export async function setDisabled(
  db: Db,
  id: string,
  disabled: boolean,
): Promise<{ record: DefinitionRecord; wasDisabled: boolean } | null> {
  const updated = columns
    .split(', ')
    .map((column) => `d.${column}`)
    .join(', ');
  const { rows } = await db.query<DefinitionRow & { was_disabled: boolean }>(
    `UPDATE process_definitions d SET disabled = $2
     FROM (SELECT id, disabled FROM process_definitions WHERE id = $1 AND NOT draft FOR UPDATE) previous
     WHERE d.id = previous.id
     RETURNING ${updated}, previous.disabled AS was_disabled`,
    [id, disabled],
  );
  const row = rows[0];
  return row ? { record: toRecord(row), wasDisabled: row.was_disabled } : null;
}

/**
 * Sets the history time to live of a version or draft (null: the global retention applies); returns
 * it, or null when absent. The next housekeeping run applies it to the version's ended instances.
 */
export async function setHistoryTimeToLive(
  db: Db,
  id: string,
  days: number | null,
): Promise<DefinitionRecord | null> {
  const { rows } = await db.query<DefinitionRow>(
    `UPDATE process_definitions SET history_time_to_live = $2 WHERE id = $1 RETURNING ${columns}`,
    [id, days],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** A version's id and its history time to live in days (null: the global retention). */
export interface HistoryRetention {
  id: string;
  history_time_to_live: number | null;
}

/**
 * Every definition (versions and drafts) with its history time to live, in id order: history
 * housekeeping walks the ended instances of each in turn.
 */
export async function listHistoryRetentions(db: Db): Promise<HistoryRetention[]> {
  const { rows } = await db.query<HistoryRetention>({
    name: 'workflow.housekeeping.history-retentions',
    text: 'SELECT id, history_time_to_live FROM process_definitions ORDER BY id',
    values: [],
  });
  return rows;
}

/** Renames every version and draft of a key in one statement; returns how many rows changed. */
export async function renameKey(
  db: Db,
  input: { orgId: string; processGroupId: string; processKey: string; name: string },
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE process_definitions SET name = $4
     WHERE org_id = $1 AND process_group_id = $2 AND process_key = $3`,
    [input.orgId, input.processGroupId, input.processKey, input.name],
  );
  return rowCount ?? 0;
}

/** The definition a start by key uses: the latest enabled version of the key. */
export async function findLatestEnabled(
  db: Db,
  orgId: string,
  processKey: string,
): Promise<DefinitionRecord | null> {
  const { rows } = await db.query<DefinitionRow>({
    name: 'workflow.definitions.latest-enabled',
    text: `SELECT ${columns} FROM process_definitions
           WHERE org_id = $1 AND process_key = $2 AND NOT draft AND NOT disabled
           ORDER BY version DESC LIMIT 1`,
    values: [orgId, processKey],
  });
  return rows[0] ? toRecord(rows[0]) : null;
}

/** The compiled model of a definition. */
export async function loadModel(db: Db, id: string): Promise<ProcessModel | null> {
  const { rows } = await db.query<{ model: ProcessModel }>({
    name: 'workflow.definitions.model',
    text: 'SELECT model FROM process_definitions WHERE id = $1',
    values: [id],
  });
  return rows[0]?.model ?? null;
}

function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

/**
 * SQL that holds when the definition `definitionSql` is still the latest enabled version of the key
 * (`orgSql`, `keySql`) and not suspended: the check a start by key made on a cached definition, redone atomically.
 */
export function stillLatestEnabled(definitionSql: string, orgSql: string, keySql: string): string {
  return `EXISTS (SELECT 1 FROM process_definitions d
                  WHERE d.id = ${definitionSql} AND d.org_id = ${orgSql}
                    AND d.process_key = ${keySql} AND NOT d.draft AND NOT d.disabled AND NOT d.suspended
                    AND NOT EXISTS (SELECT 1 FROM process_definitions n
                                    WHERE n.org_id = ${orgSql} AND n.process_key = ${keySql}
                                      AND NOT n.draft AND NOT n.disabled AND n.version > d.version))`;
}

/** True when the key has a deployed (non-draft) version, disabled or not. */
export async function hasDeployedVersion(db: Db, orgId: string, processKey: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM process_definitions WHERE org_id = $1 AND process_key = $2 AND NOT draft',
    [orgId, processKey],
  );
  return Boolean(rowCount);
}

/** A version as a start needs it: its id, org and key. */
export interface StartableDefinition {
  id: string;
  org_id: string;
  process_key: string;
}

/**
 * The enabled version of a key in an org that a call activity starts: the latest (`latest`), a
 * version number (`version`), or the latest deployed from the same BPMN document as the definition
 * `sameDocumentAs` (its content hash); null when there is none.
 */
export async function findEnabledVersion(
  db: Db,
  orgId: string,
  processKey: string,
  which: { latest: true } | { version: number } | { sameDocumentAs: string },
): Promise<StartableDefinition | null> {
  let text: string;
  let values: unknown[];
  if ('version' in which) {
    text = `AND version = $3`;
    values = [which.version];
  } else if ('sameDocumentAs' in which) {
    text = `AND content_hash = (SELECT content_hash FROM process_definitions WHERE id = $3)
              ORDER BY version DESC LIMIT 1`;
    values = [which.sameDocumentAs];
  } else {
    text = `AND true ORDER BY version DESC LIMIT 1`;
    values = [];
  }
  const { rows } = await db.query<StartableDefinition>(
    `SELECT id, org_id, process_key FROM process_definitions
     WHERE org_id = $1 AND process_key = $2 AND NOT draft AND NOT disabled ${text}`,
    [orgId, processKey, ...values],
  );
  return rows[0] ?? null;
}

/** A version a timer start event starts, with the flags that stop it. */
export interface TimerStartTarget extends StartableDefinition {
  disabled: boolean;
  draft: boolean;
}

/** The versions timer start events start, by id (those that exist). */
export async function findTimerStartTargets(db: Db, ids: string[]): Promise<TimerStartTarget[]> {
  const { rows } = await db.query<TimerStartTarget>({
    name: 'workflow.timers.start-targets',
    text: 'SELECT id, org_id, process_key, disabled, draft FROM process_definitions WHERE id = ANY($1::uuid[])',
    values: [ids],
  });
  return rows;
}

/** A version a message or signal starts: the latest enabled version of its key. */
export interface StartableVersion {
  id: string;
  org_id: string;
  process_key: string;
  version: number;
}

/**
 * The versions a message or signal of this name starts: for each process key that has a start event
 * for it, the latest enabled version, if that version still has one. Drafts and disabled versions
 * never start (spec).
 */
export async function findStartableVersions(
  db: Db,
  orgId: string,
  kind: 'message' | 'signal',
  name: string,
): Promise<StartableVersion[]> {
  const { rows } = await db.query<StartableVersion & { starts: boolean; suspended: boolean }>({
    name: `workflow.events.startable_${kind}`,
    text: `SELECT * FROM (
             SELECT DISTINCT ON (process_key) id, org_id, process_key, version, suspended,
                    weft_start_event_names(model, '${kind}') @> ARRAY[$2::text] AS starts
             FROM process_definitions
             WHERE org_id = $1 AND NOT draft AND NOT disabled
               AND process_key IN (SELECT process_key FROM process_definitions
                                   WHERE weft_start_event_names(model, '${kind}') @> ARRAY[$2::text] AND org_id = $1)
             ORDER BY process_key, version DESC
           ) AS latest
           WHERE starts AND NOT suspended
           ORDER BY process_key`,
    values: [orgId, name],
  });
  return rows.map(({ starts: _starts, suspended: _suspended, ...version }) => version);
}

/**
 * Sets the flag of a deployed version and of all its running instances, recording each instance's
 * change; null when the version is absent or a draft. Returns how many instances changed.
 */
export async function setDefinitionSuspended(
  db: Db,
  input: { definitionId: string; suspended: boolean; actor: string; now: Date },
): Promise<{ instances: number } | null> {
  const { rows } = await db.query<{ definitions: string; instances: string }>({
    name: 'workflow.definitions.set-suspended',
    text: `WITH definition AS (
             UPDATE process_definitions SET suspended = $2 WHERE id = $1 AND NOT draft RETURNING id
           ), changed AS (
             UPDATE process_instances SET suspended = $2
             WHERE definition_id IN (SELECT id FROM definition) AND ended_at IS NULL AND suspended <> $2
             RETURNING id, process_key
           ), entry AS (
             INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
             SELECT id, CASE WHEN $2 THEN 'instanceSuspended' ELSE 'instanceResumed' END, process_key, 'process',
                    NULL, $3, jsonb_build_object('actor', $4::text, 'definitionId', $1::text)
             FROM changed
           )
           SELECT (SELECT count(*) FROM definition) AS definitions, (SELECT count(*) FROM changed) AS instances`,
    values: [input.definitionId, input.suspended, input.now, input.actor],
  });
  const row = rows[0];
  if (!row || Number(row.definitions) === 0) return null;
  return { instances: Number(row.instances) };
}

/** True when the version exists and is suspended. */
export async function isDefinitionSuspended(db: Db, definitionId: string): Promise<boolean> {
  const { rows } = await db.query<{ suspended: boolean }>({
    name: 'workflow.definitions.is-suspended',
    text: 'SELECT suspended FROM process_definitions WHERE id = $1',
    values: [definitionId],
  });
  return rows[0]?.suspended === true;
}

/** Filters of a query over deployed versions (drafts are never listed); `orgIds` undefined: every org. */
export interface DefinitionQuery {
  orgIds: readonly string[] | undefined;
  ids?: readonly string[] | undefined;
  keys?: readonly string[] | undefined;
  keyLike?: string | undefined;
  name?: string | undefined;
  nameLike?: string | undefined;
  version?: number | undefined;
  /** Only the latest version of each key. */
  latestVersion?: boolean | undefined;
  /** Only the versions of this deployment (a weft id, deployment-view.ts). */
  deploymentId?: string | undefined;
  /** Only versions that cannot start instances (suspended or disabled), or only those that can. */
  suspended?: boolean | undefined;
}

/** How a definition query is ordered and cut. */
export interface DefinitionPage {
  sortBy: 'id' | 'key' | 'name' | 'version' | 'deploymentId' | 'tenantId';
  descending: boolean;
  offset: number;
  limit: number;
}

/** A deployed version with its org's slug and the id of its deployment. */
export interface ListedDefinition extends DefinitionRecord {
  tenant_id: string;
  deployment_id: string;
}

function definitionQuerySql(query: DefinitionQuery, values: unknown[]): string {
  const param = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const where = ['NOT d.draft'];
  if (query.orgIds !== undefined) where.push(`d.org_id = ANY(${param(query.orgIds, 'uuid[]')})`);
  if (query.ids !== undefined) where.push(`d.id = ANY(${param(query.ids, 'uuid[]')})`);
  if (query.keys !== undefined) where.push(`d.process_key = ANY(${param(query.keys, 'text[]')})`);
  if (query.keyLike !== undefined) where.push(`d.process_key LIKE ${param(query.keyLike, 'text')}`);
  if (query.name !== undefined) where.push(`d.name = ${param(query.name, 'text')}`);
  if (query.nameLike !== undefined) where.push(`d.name LIKE ${param(query.nameLike, 'text')}`);
  if (query.version !== undefined) where.push(`d.version = ${param(query.version, 'int')}`);
  if (query.latestVersion === true)
    where.push(`d.version = (SELECT max(l.version) FROM process_definitions l
                             WHERE l.org_id = d.org_id AND l.process_key = d.process_key AND NOT l.draft)`);
  if (query.deploymentId !== undefined)
    where.push(inDeploymentOfSql('d.org_id', 'd.deployed_at', param(query.deploymentId, 'uuid')));
  if (query.suspended !== undefined)
    where.push(`${query.suspended ? '' : 'NOT '}(d.suspended OR d.disabled)`);
  return where.join(' AND ');
}

const definitionOrder: Record<DefinitionPage['sortBy'], string> = {
  id: 'd.id',
  key: 'd.process_key',
  name: 'd.name',
  version: 'd.version',
  deploymentId: 'deployment_id',
  tenantId: 'o.slug',
};

/** A page of deployed versions matching a query. */
export async function queryDefinitions(
  db: Db,
  query: DefinitionQuery,
  page: DefinitionPage,
): Promise<ListedDefinition[]> {
  const values: unknown[] = [];
  const where = definitionQuerySql(query, values);
  const direction = page.descending ? 'DESC' : 'ASC';
  values.push(page.limit, page.offset);
  const qualified = columns
    .split(', ')
    .map((column) => `d.${column}`)
    .join(', ');
  const { rows } = await db.query<DefinitionRow & { tenant_id: string; deployment_id: string }>(
    `SELECT ${qualified}, o.slug AS tenant_id, ${deploymentIdSql('d.org_id', 'd.deployed_at')} AS deployment_id
     FROM process_definitions d JOIN orgs o ON o.id = d.org_id
     WHERE ${where}
     ORDER BY ${definitionOrder[page.sortBy]} ${direction} NULLS LAST, d.id ${direction}
     LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  );
  return rows.map((row) => ({
    ...toRecord(row),
    tenant_id: row.tenant_id,
    deployment_id: row.deployment_id,
  }));
}

/** How many deployed versions match a query. */
export async function countDefinitions(db: Db, query: DefinitionQuery): Promise<number> {
  const values: unknown[] = [];
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM process_definitions d WHERE ${definitionQuerySql(query, values)}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}
