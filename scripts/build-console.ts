/**
 * Builds the consoles (Vite): `console/workflow` into `dist/console/workflow` and `console/records`
 * into `dist/console/records`, each served by its service at /console/. Part of `npm run build`,
 * which `npm ci` runs (`prepare`).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { build } from 'vite';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Writes `.br` and `.gz` beside every text asset, which the services send to browsers that accept
 * them (`preCompressed` in console-static.ts): no compression work per request.
 */
async function precompress(directory: string): Promise<void> {
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(js|css|html|svg|json)$/.test(entry.name)) continue;
    const file = `${entry.parentPath}/${entry.name}`;
    const content = await readFile(file);
    await writeFile(
      `${file}.br`,
      await brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    await writeFile(`${file}.gz`, await gzipped(content, { level: 9 }));
  }
}

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
  await precompress(`${root}dist/console/${app}`);
}
