/**
 * Builds the consoles (Vite): `console/workflow` into `dist/console/workflow` and `console/records`
 * into `dist/console/records`, each served by its service at /console/. Part of `npm run build`,
 * which `npm ci` runs (`prepare`).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));

for (const app of ['workflow', 'records']) {
  await build({
    configFile: false,
    root: `${root}console/${app}`,
    base: '/console/',
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: `${root}dist/console/${app}`,
      emptyOutDir: true,
      // Diagrams (bpmn-js, dmn-js) are their own chunks, loaded by the pages that show one.
      chunkSizeWarningLimit: 2000,
    },
  });
}
