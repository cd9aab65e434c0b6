import type { Queryable } from '../../platform/database/queryable.js';

/**
 * The named statements of `records.resources`: every applied resource document (SchemaDefinition,
 * AuthStrategy, RoleBinding) by kind and name, with its content hash, file and origin.
 */

/** A stored document as applying one reads it. */
export interface StoredResource {
  document: Record<string, unknown>;
  content_hash: string;
  origin: string;
}

/** A resource the resources folder applied, as pruning reads it. */
export interface FolderResource {
  kind: string;
  name: string;
  source: string;
}

/** A stored document by name, of one kind. */
export interface NamedDocument {
  name: string;
  document: { spec?: unknown };
}

/**
 * Serialises applying and pruning across instances and the CLI for the rest of the transaction, so
 * two writers never interleave on one resource.
 */
export async function lockResourceWrites(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('weft_records_apply'))`);
}

/** The stored document of `kind/name`, if any. */
export async function findResource(
  db: Queryable,
  kind: string,
  name: string,
): Promise<StoredResource | undefined> {
  const { rows } = await db.query<StoredResource>(
    `SELECT document, content_hash, origin FROM records.resources WHERE kind = $1 AND name = $2`,
    [kind, name],
  );
  return rows[0];
}

/** Records who now owns an unchanged document (its origin and file), without a new revision. */
export async function setResourceOrigin(
  db: Queryable,
  kind: string,
  name: string,
  origin: string,
  source: string,
): Promise<void> {
  await db.query(`UPDATE records.resources SET origin = $3, source = $4 WHERE kind = $1 AND name = $2`, [
    kind,
    name,
    origin,
    source,
  ]);
}

/** Stores a created or changed document under a new revision. */
export async function upsertResource(
  db: Queryable,
  resource: { kind: string; name: string; document: unknown; hash: string; source: string; origin: string },
): Promise<void> {
  await db.query(
    `INSERT INTO records.resources (kind, name, document, content_hash, source, origin) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (kind, name) DO UPDATE SET document = EXCLUDED.document, content_hash = EXCLUDED.content_hash,
             source = EXCLUDED.source, origin = EXCLUDED.origin, revision = nextval('records.resource_revisions'),
             applied_at = now()`,
    [resource.kind, resource.name, resource.document, resource.hash, resource.source, resource.origin],
  );
}

/** Every resource applied from the resources folder, by kind and name. */
export async function listFolderResources(db: Queryable): Promise<FolderResource[]> {
  const { rows } = await db.query<FolderResource>(
    `SELECT kind, name, source FROM records.resources WHERE origin = 'folder' ORDER BY kind, name`,
  );
  return rows;
}

/** Marks a folder resource `detached` (its file is gone); false when it is no longer the folder's. */
export async function detachFolderResource(db: Queryable, kind: string, name: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE records.resources SET origin = 'detached' WHERE kind = $1 AND name = $2 AND origin = 'folder'`,
    [kind, name],
  );
  return result.rowCount === 1;
}

/** Deletes a folder resource; false when it is no longer the folder's. */
export async function deleteFolderResource(db: Queryable, kind: string, name: string): Promise<boolean> {
  const result = await db.query(
    `DELETE FROM records.resources WHERE kind = $1 AND name = $2 AND origin = 'folder'`,
    [kind, name],
  );
  return result.rowCount === 1;
}

/** Deletes the document of a RoleBinding, whatever its origin; false when there was none. */
export async function deleteRoleBindingDocument(db: Queryable, name: string): Promise<boolean> {
  const result = await db.query(`DELETE FROM records.resources WHERE kind = 'RoleBinding' AND name = $1`, [
    name,
  ]);
  return result.rowCount === 1;
}

/**
 * The highest resource revision and the number of resources: changes whenever any instance or the
 * CLI applies a resource, and when one is deleted (pruned or DELETEd), which leaves no revision.
 */
export async function resourceRevision(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ revision: string }>(
    `SELECT coalesce(max(revision), 0)::text || ':' || count(*)::text AS revision FROM records.resources`,
  );
  return rows[0]?.revision ?? '0';
}

/** Every stored SchemaDefinition document, by name. */
export async function listSchemaDocuments(db: Queryable): Promise<NamedDocument[]> {
  const { rows } = await db.query<NamedDocument>(
    `SELECT name, document FROM records.resources WHERE kind = 'SchemaDefinition' ORDER BY name`,
  );
  return rows;
}

/** Every stored AuthStrategy document, by name. */
export async function listAuthStrategyDocuments(db: Queryable): Promise<NamedDocument[]> {
  const { rows } = await db.query<NamedDocument>(
    `SELECT name, document FROM records.resources WHERE kind = 'AuthStrategy' ORDER BY name`,
  );
  return rows;
}
