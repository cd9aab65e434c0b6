import type { Pool } from '../../src/platform/database/pool.js';

/** The supplier the benches' purchase orders refer to (`supplier_id` must name an existing supplier). */
export const benchSupplierId = '3f1c2a4e-8d2b-4c55-9a0e-0d6c1e2f3a4b';

/** Inserts the bench supplier into the example suppliers table (applied beforehand). */
export async function seedBenchSupplier(pool: Pool): Promise<void> {
  await pool.query(
    `INSERT INTO rec_acme.procurement__sourcing__suppliers__v1 (id, created_by, updated_by, name, country)
     VALUES ($1, 'bench', 'bench', 'Bench Supplier', 'DE') ON CONFLICT (id) DO NOTHING`,
    [benchSupplierId],
  );
}
