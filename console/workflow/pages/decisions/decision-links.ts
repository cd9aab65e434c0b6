import { base } from '../../session.js';

/** The console URL of a decision key's page, on a pinned version or the latest. */
export function decisionHref(decisionKey: string, version?: number): string {
  const path = `${base}/decisions/${encodeURIComponent(decisionKey)}`;
  return version === undefined ? path : `${path}?version=${version}`;
}
