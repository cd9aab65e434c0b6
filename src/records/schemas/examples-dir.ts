import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundled example resources (purchase orders and suppliers). */
export const examplesResourcesDir = fileURLToPath(new URL('../../../examples/resources', import.meta.url));

/**
 * The folder to serve: `RECORDS_RESOURCES_DIR` when set (it must exist), else `./resources` when it
 * exists, else the bundled examples, so a fresh clone serves a working API at once.
 */
export function resolveResourcesDir(configured: string | undefined): {
  directory: string;
  examples: boolean;
} {
  if (configured !== undefined) {
    const directory = path.resolve(configured);
    if (!existsSync(directory)) throw new Error(`RECORDS_RESOURCES_DIR ${directory} does not exist`);
    return { directory, examples: false };
  }
  const local = path.resolve('resources');
  return existsSync(local)
    ? { directory: local, examples: false }
    : { directory: examplesResourcesDir, examples: true };
}
