import type { SealedSecret } from './secret-cipher.js';
import type { Queryable } from '../../platform/database/queryable.js';

/** A secret as listed: never its value. */
export interface SecretSummary {
  name: string;
  created_at: string;
  updated_at: string;
}

/** A stored row, sealed. */
export interface StoredSecret extends SealedSecret {
  orgId: string;
  name: string;
}

interface SummaryRow {
  name: string;
  created_at: Date;
  updated_at: Date;
}

const toSummary = (row: SummaryRow): SecretSummary => ({
  name: row.name,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

interface SealedRow {
  org_id: string;
  name: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
}

const toStored = (row: SealedRow): StoredSecret => ({
  orgId: row.org_id,
  name: row.name,
  keyId: row.key_id,
  nonce: row.nonce,
  ciphertext: row.ciphertext,
});

/** Creates or replaces a secret; `created` is false when a value was replaced. */
export async function upsertSecret(
  db: Queryable,
  orgId: string,
  name: string,
  sealed: SealedSecret,
): Promise<SecretSummary & { created: boolean }> {
  const { rows } = await db.query<SummaryRow & { created: boolean }>({
    name: 'workflow.secrets.upsert',
    text: `INSERT INTO secrets (org_id, name, key_id, nonce, ciphertext)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (org_id, name) DO UPDATE
             SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
                 updated_at = now()
           RETURNING name, created_at, updated_at, (xmax = 0) AS created`,
    values: [orgId, name, sealed.keyId, sealed.nonce, sealed.ciphertext],
  });
  const row = rows[0] as SummaryRow & { created: boolean };
  return { ...toSummary(row), created: row.created };
}

/** The names and times of an org's secrets, by name. */
export async function listSecrets(db: Queryable, orgId: string): Promise<SecretSummary[]> {
  const { rows } = await db.query<SummaryRow>({
    name: 'workflow.secrets.list',
    text: `SELECT name, created_at, updated_at FROM secrets WHERE org_id = $1 ORDER BY name`,
    values: [orgId],
  });
  return rows.map(toSummary);
}

/** Deletes a secret; false when there was none. */
export async function deleteSecret(db: Queryable, orgId: string, name: string): Promise<boolean> {
  const result = await db.query({
    name: 'workflow.secrets.delete',
    text: `DELETE FROM secrets WHERE org_id = $1 AND name = $2`,
    values: [orgId, name],
  });
  return result.rowCount === 1;
}

/** The sealed values of the named secrets of an org (missing names are simply absent). */
export async function findSecrets(
  db: Queryable,
  orgId: string,
  names: readonly string[],
): Promise<StoredSecret[]> {
  const { rows } = await db.query<SealedRow>({
    name: 'workflow.secrets.find',
    text: `SELECT org_id, name, key_id, nonce, ciphertext FROM secrets WHERE org_id = $1 AND name = ANY($2::text[])`,
    values: [orgId, names],
  });
  return rows.map(toStored);
}

/** Locks up to `limit` rows not encrypted with `keyId` (for rotation), skipping rows others hold. */
export async function lockSecretsNotUnder(
  db: Queryable,
  keyId: string,
  limit: number,
): Promise<StoredSecret[]> {
  const { rows } = await db.query<SealedRow>({
    name: 'workflow.secrets.lock-stale',
    text: `SELECT org_id, name, key_id, nonce, ciphertext FROM secrets WHERE key_id <> $1
           ORDER BY org_id, name LIMIT $2 FOR UPDATE SKIP LOCKED`,
    values: [keyId, limit],
  });
  return rows.map(toStored);
}

/** Replaces a row's sealed value without touching its times (rotation is not an update by a person). */
export async function resealSecret(
  db: Queryable,
  orgId: string,
  name: string,
  sealed: SealedSecret,
): Promise<void> {
  await db.query({
    name: 'workflow.secrets.reseal',
    text: `UPDATE secrets SET key_id = $3, nonce = $4, ciphertext = $5 WHERE org_id = $1 AND name = $2`,
    values: [orgId, name, sealed.keyId, sealed.nonce, sealed.ciphertext],
  });
}
