import { readFileSync, statSync } from 'node:fs';
import Type, { type Static } from 'typebox';
import { environmentVariableNames } from '../../platform/config/index.js';
import type { DocumentProblem } from '../schemas/validate-definition.js';

/**
 * Where a secret of a resource is read from: `{env: NAME}` (a variable of the service's environment)
 * or `{file: /path}` (e.g. a mounted Kubernetes secret). The document holds the reference, never the
 * value.
 */
export const secretReferenceSchema = Type.Union([
  Type.Object(
    { env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }) },
    { additionalProperties: false },
  ),
  Type.Object({ file: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
]);

/** A validated secret reference. */
export type SecretReference = Static<typeof secretReferenceSchema>;

/** What `{env: NAME}` references resolve against: the service's environment (Config.records.secretEnvironment). */
export type SecretEnvironment = Readonly<Record<string, string>>;

const ownVariables = new Set<string>(environmentVariableNames);
const maxSecretBytes = 64 * 1024;

/**
 * Reads the secret a reference points at (a file is read now, so a rotated file is picked up at the
 * next reload; trailing whitespace is dropped). On failure the problem names the variable or the
 * file, never a value; `at` is the reference's path in the document.
 */
export function resolveSecretReference(
  reference: SecretReference,
  environment: SecretEnvironment,
  at: string,
): { ok: true; value: string } | { ok: false; problem: DocumentProblem } {
  const fail = (path: string, reason: string) => ({ ok: false as const, problem: { path, reason } });
  if ('env' in reference) {
    if (ownVariables.has(reference.env))
      return fail(`${at}.env`, `${reference.env} is a weft setting, not a secret a resource may use`);
    const value = Object.hasOwn(environment, reference.env) ? environment[reference.env]?.trim() : undefined;
    if (value === undefined)
      return fail(
        `${at}.env`,
        `the environment variable ${reference.env} is not set in the service's environment`,
      );
    if (value === '') return fail(`${at}.env`, `the environment variable ${reference.env} is empty`);
    return { ok: true, value };
  }
  let value: string;
  try {
    const stats = statSync(reference.file);
    // Not /dev/zero, a folder or a huge file by mistake: a secret is a small regular file.
    if (!stats.isFile() || stats.size > maxSecretBytes)
      return fail(`${at}.file`, `${reference.file} is not a regular file of at most 64 KiB`);
    value = readFileSync(reference.file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return fail(`${at}.file`, `the file ${reference.file} cannot be read (${code})`);
  }
  if (value === '') return fail(`${at}.file`, `the file ${reference.file} is empty`);
  return { ok: true, value };
}
