import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Where a conformance suite of `../shared/conformance/` is, and the skip reason to give node:test
 * when the checkout has no such folder beside it (a clone elsewhere): the suite then reports as
 * skipped with that reason instead of failing on a missing file.
 */
export function conformanceSuite(name: string): { directory: string; skip: string | false } {
  const directory = resolve(process.cwd(), '..', 'shared', 'conformance', name);
  return {
    directory,
    skip:
      !existsSync(directory) &&
      `the ${name} conformance suite is not at ${directory}: the suites live in ../shared beside the repository`,
  };
}
