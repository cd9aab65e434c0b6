import type { ScriptWait } from '../runtime/index.js';

/**
 * Retry policy of a weft extension that runs as a job (a connector): the extension element's
 * `retries` (attempts in all, default 3), `retryBackoffMs` (default 5,000) and `maxRetryBackoffMs`
 * (default 600,000) attributes. The connector checks them at deploy time; here a value that is not
 * a whole number falls back to its default.
 */
export interface ExtensionJobPolicy {
  retries: number;
  backoffMs: number;
  maxBackoffMs: number;
}

/** Defaults of {@link ExtensionJobPolicy}. */
export const defaultExtensionJobPolicy: ExtensionJobPolicy = {
  retries: 3,
  backoffMs: 5_000,
  maxBackoffMs: 600_000,
};

function wholeNumber(text: string | undefined, fallback: number, minimum: number): number {
  if (text === undefined || !/^\s*\d{1,9}\s*$/.test(text)) return fallback;
  const value = Number(text);
  return value >= minimum ? value : fallback;
}

/** The retry policy a script wait's extension element declares. */
export function extensionJobPolicy(wait: ScriptWait): ExtensionJobPolicy {
  const attributes = wait.extension.attributes;
  return {
    retries: wholeNumber(attributes.retries, defaultExtensionJobPolicy.retries, 1),
    backoffMs: wholeNumber(attributes.retryBackoffMs, defaultExtensionJobPolicy.backoffMs, 0),
    maxBackoffMs: wholeNumber(attributes.maxRetryBackoffMs, defaultExtensionJobPolicy.maxBackoffMs, 0),
  };
}
