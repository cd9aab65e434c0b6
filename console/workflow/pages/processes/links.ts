import { base } from '../../session.js';

/** The page of one version. */
export function versionPath(processKey: string, definitionId: string): string {
  return `${base}/processes/${encodeURIComponent(processKey)}/versions/${definitionId}`;
}

/** The instances list filtered by a version and, optionally, an element of it. */
export function instancesPath(definitionId: string, elementId?: string): string {
  const search = new URLSearchParams({ definition_id: definitionId });
  if (elementId !== undefined) search.set('element_id', elementId);
  return `${base}/instances?${search.toString()}`;
}
