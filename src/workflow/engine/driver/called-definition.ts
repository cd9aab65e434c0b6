import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { CallActivityModel } from '../model/index.js';

/** The version a call activity starts. */
export interface CalledDefinition {
  id: string;
  org_id: string;
  process_key: string;
}

/**
 * Finds the enabled version a call activity starts, in the caller's org: the latest enabled version
 * of the key (binding `latest`, the default), the pinned version number (`version`), or the version
 * of the key deployed from the same BPMN document as the caller (`deployment`). Returns the reason
 * when there is none; `versionTag` bindings are not supported (weft has no version tags).
 */
export async function findCalledDefinition(
  db: Pool | PoolClient,
  caller: { orgId: string; definitionId: string },
  called: CallActivityModel['calledElement'],
): Promise<{ ok: true; definition: CalledDefinition } | { ok: false; message: string }> {
  const key = called.processKey;
  let text: string;
  let values: unknown[];
  switch (called.binding) {
    case 'latest':
      text = `AND true ORDER BY version DESC LIMIT 1`;
      values = [];
      break;
    case 'version': {
      const version = Number(called.version?.trim());
      if (!Number.isInteger(version) || version < 1)
        return {
          ok: false,
          message: `the called version of '${key}' is not a version number: ${called.version}`,
        };
      text = `AND version = $3`;
      values = [version];
      break;
    }
    case 'deployment':
      text = `AND content_hash = (SELECT content_hash FROM process_definitions WHERE id = $3)
              ORDER BY version DESC LIMIT 1`;
      values = [caller.definitionId];
      break;
    default:
      return { ok: false, message: `the ${called.binding} binding of call activities is not supported` };
  }
  const { rows } = await db.query<CalledDefinition>(
    `SELECT id, org_id, process_key FROM process_definitions
     WHERE org_id = $1 AND process_key = $2 AND NOT draft AND NOT disabled ${text}`,
    [caller.orgId, key, ...values],
  );
  const definition = rows[0];
  if (definition === undefined) {
    const which = called.binding === 'version' ? `version ${called.version} of ` : '';
    return { ok: false, message: `no enabled ${which}process '${key}' to call` };
  }
  return { ok: true, definition };
}
