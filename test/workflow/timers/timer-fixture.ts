import type { Clock } from '../../../src/platform/clock.js';
import type { Pool } from '../../../src/platform/database/pool.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** An org and a deployed definition to hang timer jobs on. */
export async function seedDefinition(pool: Pool): Promise<{ orgId: string; definitionId: string }> {
  const { rows } = await pool.query<{ org_id: string; definition_id: string }>(
    `WITH org AS (INSERT INTO orgs (name, slug) VALUES ('Acme', 'acme-' || substr(md5(random()::text), 1, 8)) RETURNING id),
          grp AS (INSERT INTO process_groups (org_id, name) SELECT id, 'default' FROM org RETURNING id, org_id)
     INSERT INTO process_definitions (org_id, process_group_id, process_key, version, name, xml, content_hash, model)
     SELECT org_id, id, 'p', 1, 'P', '<xml/>', 'h', '{}' FROM grp
     RETURNING org_id, id AS definition_id`,
  );
  const row = rows[0];
  if (!row) throw new Error('seed failed');
  return { orgId: row.org_id, definitionId: row.definition_id };
}
