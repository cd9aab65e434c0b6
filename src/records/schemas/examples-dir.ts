import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundled example resources (purchase orders and suppliers). */
export const examplesResourcesDir = fileURLToPath(new URL('../../../examples/resources', import.meta.url));

/**
 * The folder to serve: `RECORDS_RESOURCES_DIR` when set (it must exist), else `./resources` when it
 * exists, else — in development only — the bundled examples, so a fresh clone serves a working API
 * at once. A production start (`NODE_ENV=production`) never creates the demo schemas on its own:
 * without a folder it serves what was applied to the database (`weft records apply`), and
 * `RECORDS_RESOURCES_DIR` may name the examples folder to ask for them.
 */
export function resolveResourcesDir(
  configured: string | undefined,
  options: { production: boolean } = { production: false },
): {
  directory: string | undefined;
  examples: boolean;
} {
  if (configured !== undefined) {
    const directory = path.resolve(configured);
    if (!existsSync(directory)) throw new Error(`RECORDS_RESOURCES_DIR ${directory} does not exist`);
    return { directory, examples: false };
  }
  const local = path.resolve('resources');
  if (existsSync(local)) return { directory: local, examples: false };
  return options.production
    ? { directory: undefined, examples: false }
    : { directory: examplesResourcesDir, examples: true };
}
