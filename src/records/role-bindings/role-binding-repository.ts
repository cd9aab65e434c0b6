import type { Pool, PoolClient } from '../../platform/database/pool.js';
import { deleteRoleBindingDocument } from '../schemas/resource-repository.js';
import type { RoleBinding } from './role-binding-definition.js';

/**
 * Stores a binding as part of the apply that stores its document (same transaction). A changed
 * binding is live again even if it was revoked: applying it is granting it anew.
 */
export async function upsertRoleBinding(client: PoolClient, binding: RoleBinding): Promise<void> {
  await client.query(
    `INSERT INTO records.role_bindings (name, actor_id, roles, scope, attributes, expires_at)
     VALUES ($1, $2, $3, $4, $5, to_timestamp($6::double precision / 1000))
     ON CONFLICT (name) DO UPDATE SET actor_id = EXCLUDED.actor_id, roles = EXCLUDED.roles,
       scope = EXCLUDED.scope, attributes = EXCLUDED.attributes, expires_at = EXCLUDED.expires_at,
       revoked_at = NULL, updated_at = now()`,
    [binding.name, binding.actor, binding.roles, binding.scope, binding.attributes, binding.expiresAt],
  );
}

/** What the revocation store mirrors: live bindings by actor and revocation times by actor. */
export interface BindingState {
  bindings: Map<string, RoleBinding[]>;
  /** Actor → latest revocation (ms). */
  revoked: Map<string, number>;
}

/** Reads every binding: live ones grouped by actor, revoked or deleted ones as revocations. */
export async function loadBindingState(pool: Pool): Promise<BindingState> {
  const { rows } = await pool.query<{
    name: string;
    actor_id: string;
    roles: string[];
    scope: Record<string, unknown>;
    attributes: Record<string, unknown>;
    expires_ms: string | null;
    revoked_ms: string | null;
  }>(
    `SELECT name, actor_id, roles, scope, attributes,
            (extract(epoch FROM expires_at) * 1000)::bigint::text AS expires_ms,
            (extract(epoch FROM revoked_at) * 1000)::bigint::text AS revoked_ms
     FROM records.role_bindings ORDER BY name`,
  );
  const state: BindingState = { bindings: new Map(), revoked: new Map() };
  for (const row of rows) {
    if (row.revoked_ms !== null) {
      const at = Number(row.revoked_ms);
      state.revoked.set(row.actor_id, Math.max(at, state.revoked.get(row.actor_id) ?? 0));
      continue;
    }
    const list = state.bindings.get(row.actor_id) ?? [];
    list.push({
      name: row.name,
      actor: row.actor_id,
      roles: row.roles,
      expiresAt: row.expires_ms === null ? null : Number(row.expires_ms),
      scope: row.scope,
      attributes: row.attributes,
    });
    state.bindings.set(row.actor_id, list);
  }
  return state;
}

/**
 * Revokes a binding (`deleteDocument`: and removes its resource document, so it is gone for good
 * until applied again). Returns false when there is no live binding of that name.
 */
export async function revokeRoleBinding(
  client: PoolClient,
  name: string,
  deleteDocument: boolean,
): Promise<boolean> {
  const result = await client.query(
    `UPDATE records.role_bindings SET revoked_at = now(), updated_at = now() WHERE name = $1 AND revoked_at IS NULL`,
    [name],
  );
  const existed = result.rowCount === 1;
  if (deleteDocument) {
    const deleted = await deleteRoleBindingDocument(client, name);
    return existed || deleted;
  }
  return existed;
}
