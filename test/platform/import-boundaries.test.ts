import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The project's own rules, as `npm run lint` applies them.
const { boundaryConfigs, namedBarrels } = (await import(
  pathToFileURL(path.join(root, 'eslint.config.js')).href
)) as { boundaryConfigs: Linter.Config[]; namedBarrels: Linter.Config };

/** The boundary rules of eslint.config.js alone (no type information needed) on `code` at `file`. */
async function ruleIds(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      ...boundaryConfigs,
      namedBarrels,
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('the linter keeps the layers apart', () => {
  const forbidden: [file: string, code: string][] = [
    ['src/records/http/probe.ts', "import { WorkflowErrors } from '../../workflow/errors.js';"],
    ['src/workflow/deployments/probe.ts', "import { RecordsErrors } from '../../records/errors.js';"],
    ['src/workflow/engine/model/probe.ts', "import pg from 'pg';"],
    [
      'src/workflow/engine/runtime/probe.ts',
      "import { createPool } from '../../../platform/database/pool.js';",
    ],
    ['src/workflow/engine/schedule/probe.ts', "import type { Pool } from 'pg';"],
    ['src/lib/rhai/probe.ts', "import { createLogger } from '../../platform/logging/logger.js';"],
    ['src/lib/dmn/probe.ts', "import { WorkflowErrors } from '../../workflow/errors.js';"],
    ['src/worker/probe.ts', "import { WorkflowErrors } from '../workflow/errors.js';"],
    ['src/platform/http/probe.ts', "import { RecordsErrors } from '../../records/errors.js';"],
  ];
  for (const [file, code] of forbidden)
    test(`${file} may not ${code}`, async () => {
      const found = await ruleIds(file, code);
      assert.ok(
        found.some((message) => message.startsWith('no-restricted-imports')),
        `expected no-restricted-imports, got ${JSON.stringify(found)}`,
      );
    });

  test('imports within a layer and downwards pass', async () => {
    for (const [file, code] of [
      ['src/records/http/probe.ts', "import { createPool } from '../../platform/database/pool.js';"],
      ['src/workflow/engine/driver/probe.ts', "import pg from 'pg';"],
      ['src/workflow/engine/model/probe.ts', "import { compileBpmn } from './compile.js';"],
    ] as const)
      assert.deepEqual(await ruleIds(file, code), [], `${file}: ${code}`);
  });

  test('a barrel that re-exports everything is refused', async () => {
    const found = await ruleIds('src/workflow/timers/index.ts', "export * from './leader.js';");
    assert.ok(
      found.some((message) => message.startsWith('no-restricted-syntax')),
      JSON.stringify(found),
    );
  });
});
