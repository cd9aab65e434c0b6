import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { ProcessModel } from '../engine/model/index.js';

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
  deployed_at: string;
}

interface DefinitionRow extends Omit<DefinitionRecord, 'deployed_at'> {
  deployed_at: Date;
}

const columns = 'id, org_id, process_group_id, process_key, version, name, disabled, draft, deployed_at';

function toRecord(row: DefinitionRow): DefinitionRecord {
  return { ...row, deployed_at: row.deployed_at.toISOString() };
}

type Db = Pool | PoolClient;

/** Locks the key's row (creating it) and returns the latest deployed version's id and hash. */
export async function lockProcessKey(
  db: PoolClient,
  orgId: string,
  processKey: string,
): Promise<{ lastVersion: number; latest: { id: string; contentHash: string; draft: boolean } | null }> {
  await db.query(
    `INSERT INTO process_keys (org_id, process_key) VALUES ($1, $2) ON CONFLICT (org_id, process_key) DO NOTHING`,
    [orgId, processKey],
  );
  const { rows } = await db.query<{ last_version: number }>(
    'SELECT last_version FROM process_keys WHERE org_id = $1 AND process_key = $2 FOR UPDATE',
    [orgId, processKey],
  );
  const latest = await db.query<{ id: string; content_hash: string; draft: boolean }>(
    `SELECT id, content_hash, draft FROM process_definitions
     WHERE org_id = $1 AND process_key = $2 AND NOT draft ORDER BY version DESC LIMIT 1`,
    [orgId, processKey],
  );
  const row = latest.rows[0];
  return {
    lastVersion: rows[0]?.last_version ?? 0,
    latest: row ? { id: row.id, contentHash: row.content_hash, draft: row.draft } : null,
  };
}

/** Inserts a version (`version` set) or a draft (`version` null) and advances the key's counter. */
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
  if (input.version !== null) {
    await db.query('UPDATE process_keys SET last_version = $3 WHERE org_id = $1 AND process_key = $2', [
      input.orgId,
      input.processKey,
      input.version,
    ]);
  }
  const { rows } = await db.query<DefinitionRow>(
    `INSERT INTO process_definitions
       (org_id, process_group_id, process_key, version, draft, name, xml, content_hash, model)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
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

/** True when the process group belongs to the org. */
export async function processGroupInOrg(db: Db, orgId: string, processGroupId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM process_groups WHERE id = $1 AND org_id = $2', [
    processGroupId,
    orgId,
  ]);
  return rowCount === 1;
}

function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return row;
}
