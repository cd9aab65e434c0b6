import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { CalledElement } from '../model/index.js';
import { findEnabledVersion, type StartableDefinition } from '../store/process-definitions.js';

/** The version a call activity starts. */
export type CalledDefinition = StartableDefinition;

/**
 * Finds the enabled version a call activity starts, in the caller's org: the latest enabled version
 * of the key (binding `latest`, the default), the pinned version number (`version`), or the version
 * of the key deployed from the same BPMN document as the caller (`deployment`). Returns the reason
 * when there is none; `versionTag` bindings are not supported (weft has no version tags).
 */
export async function findCalledDefinition(
  db: Pool | PoolClient,
  caller: { orgId: string; definitionId: string },
  called: CalledElement,
): Promise<{ ok: true; definition: CalledDefinition } | { ok: false; message: string }> {
  const key = called.processKey;
  let which: Parameters<typeof findEnabledVersion>[3];
  switch (called.binding) {
    case 'latest':
      which = { latest: true };
      break;
    case 'version': {
      const version = Number(called.version?.trim());
      if (!Number.isInteger(version) || version < 1)
        return {
          ok: false,
          message: `the called version of '${key}' is not a version number: ${called.version}`,
        };
      which = { version };
      break;
    }
    case 'deployment':
      which = { sameDocumentAs: caller.definitionId };
      break;
    default:
      return { ok: false, message: `the ${called.binding} binding of call activities is not supported` };
  }
  const definition = await findEnabledVersion(db, caller.orgId, key, which);
  if (definition === null) {
    const which = called.binding === 'version' ? `version ${called.version} of ` : '';
    return { ok: false, message: `no enabled ${which}process '${key}' to call` };
  }
  return { ok: true, definition };
}
