import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/** Where browser tests keep their screenshots (an artifact of the run, not committed). */
export const screenshotDir = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));

/**
 * A headless Chromium for browser tests: the binary that `@sparticuz/chromium` ships inside its npm
 * package (unpacked into the temp folder on first use), so `npm ci && npm test` needs no download
 * and no system browser. `WEFT_CHROMIUM` names another binary (e.g. Debian's /usr/bin/chromium).
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await prepareBrowser();
  for (let attempt = 1; ; attempt++) {
    try {
      return await playwright.launch({ executablePath, args: browserArgs(), headless: true });
    } catch (error) {
      // Another test process may still be unpacking the shared binary (the package checks only
      // that the file exists): wait for its write to finish.
      if (attempt >= 40 || !String(error).includes('ETXTBSY')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * The browser binary's path, unpacking it first when needed. The test runner calls it once before
 * the test processes start, so that they do not unpack it side by side.
 */
export async function prepareBrowser(): Promise<string> {
  return process.env.WEFT_CHROMIUM ?? chromium.executablePath();
}

// The package's flags are made for AWS Lambda: one process (closing a page context would end the
// browser) and web security off. The console is tested with the browser's protections on.
const lambdaOnly = new Set([
  '--single-process',
  '--disable-web-security',
  '--allow-running-insecure-content',
]);

function browserArgs(): string[] {
  return [
    ...chromium.args.filter((arg) => !lambdaOnly.has(arg)),
    // Nothing outside this machine is reachable: no background traffic to Google's hosts.
    '--disable-background-networking',
    '--disable-component-update',
  ];
}

/** A page that records every console error and uncaught exception into `errors`. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors, close: () => context.close() };
}

/** Saves a full-page screenshot as `test-artifacts/console/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** One axe-core finding. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

let axeSource: string | undefined;

/** Runs axe-core on the page; the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (no inline scripts) does not govern.
  await page.evaluate((axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8')));
  const violations = await page.evaluate<AxeViolation[]>('axe.run().then((result) => result.violations)');
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
