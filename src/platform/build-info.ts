import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageJsonPath = fileURLToPath(new URL('../../package.json', import.meta.url));

/** Version, build date and commit of this installation. */
export interface BuildInfo {
  client_version: string;
  server_version: string;
  build_date: string;
  git_commit: string;
}

let cached: BuildInfo | undefined;

/** Reads the package version, the build's date and the git commit once. */
export function buildInfo(): BuildInfo {
  cached ??= {
    client_version: packageVersion(),
    server_version: packageVersion(),
    build_date: statSync(fileURLToPath(import.meta.url)).mtime.toISOString(),
    git_commit: gitCommit(),
  };
  return cached;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}
