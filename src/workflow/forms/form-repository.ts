import type { PoolClient } from '../../platform/database/pool.js';
import type { Queryable } from '../../platform/database/queryable.js';

/*
 * `forms`: versions of Camunda Forms by org and key (the JSON's `id`), each with the resource name
 * it was deployed under. A form belongs to the deployment of the rows of its org that share its
 * `deployed_at` (the deploying transaction's now()), as process versions and DMN files do.
 */

/** A stored version of a form. */
export interface FormRecord {
  id: string;
  org_id: string;
  form_key: string;
  version: number;
  resource_name: string;
  schema: Record<string, unknown>;
  deployed_at: Date;
}

const columns = 'f.id, f.org_id, f.form_key, f.version, f.resource_name, f.schema, f.deployed_at';

/**
 * Locks form keys of an org until the transaction ends, so concurrent deployments of a key take
 * versions one after the other; keys are locked in a fixed order so two deployments cannot deadlock.
 */
export async function lockFormKeys(
  client: PoolClient,
  orgId: string,
  formKeys: readonly string[],
): Promise<void> {
  for (const key of [...new Set(formKeys)].sort())
    await client.query(
      "SELECT pg_advisory_xact_lock(hashtextextended('weft.forms:' || $1 || ':' || $2, 0))",
      [orgId, key],
    );
}

/** The newest version of a key in an org; null when the key has none. */
export async function latestForm(db: Queryable, orgId: string, formKey: string): Promise<FormRecord | null> {
  const { rows } = await db.query<FormRecord>(
    `SELECT ${columns} FROM forms f WHERE f.org_id = $1 AND f.form_key = $2 ORDER BY f.version DESC LIMIT 1`,
    [orgId, formKey],
  );
  return rows[0] ?? null;
}

/** Stores the next version of a form, in the caller's transaction (which holds the key's lock). */
export async function insertForm(
  client: PoolClient,
  form: {
    orgId: string;
    formKey: string;
    version: number;
    resourceName: string;
    schema: Record<string, unknown>;
  },
): Promise<FormRecord> {
  const { rows } = await client.query<FormRecord>(
    `INSERT INTO forms AS f (org_id, form_key, version, resource_name, schema)
     VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING ${columns}`,
    [form.orgId, form.formKey, form.version, form.resourceName, JSON.stringify(form.schema)],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

/**
 * Which form to find for a process definition: by key, the newest version of the org (`latest`), a
 * fixed version, or the version deployed with the definition (`deployment`); or the form deployed
 * with the definition under a resource name (`camunda-forms:deployment:<name>`).
 */
export type FormLookup =
  | { by: 'latest'; formKey: string }
  | { by: 'version'; formKey: string; version: number }
  | { by: 'deployment'; formKey: string }
  | { by: 'resource'; resourceName: string };

/** The form a lookup finds for a process definition (in its org); null when there is none. */
export async function findForm(
  db: Queryable,
  definitionId: string,
  lookup: FormLookup,
): Promise<FormRecord | null> {
  const sameDeployment = 'f.org_id = d.org_id AND f.deployed_at = d.deployed_at';
  const [condition, values] =
    lookup.by === 'latest'
      ? ['f.form_key = $2', [lookup.formKey]]
      : lookup.by === 'version'
        ? ['f.form_key = $2 AND f.version = $3', [lookup.formKey, lookup.version]]
        : lookup.by === 'deployment'
          ? [`f.form_key = $2 AND ${sameDeployment}`, [lookup.formKey]]
          : [`f.resource_name = $2 AND ${sameDeployment}`, [lookup.resourceName]];
  const { rows } = await db.query<FormRecord>(
    `SELECT ${columns} FROM process_definitions d JOIN forms f ON f.org_id = d.org_id
     WHERE d.id = $1 AND ${condition} ORDER BY f.version DESC LIMIT 1`,
    [definitionId, ...values],
  );
  return rows[0] ?? null;
}
