import { watch, type FSWatcher } from 'node:fs';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { ensureSchemaDdl } from '../ddl/ensure-schema-ddl.js';
import { syncRowSecurity } from '../access/row-security-sync.js';
import { applyResources, type ApplyReport } from './apply-resources.js';
import { currentRevision, loadSchemas } from './load-schemas.js';
import { declaredKeys, pruneResources } from './prune-resources.js';
import { readResourceDirectory } from './resource-documents.js';
import type { SchemaRegistry } from './schema-registry.js';
import type { SecretEnvironment } from '../auth/secret-reference.js';

/** Options of SchemaSync. */
export interface SchemaSyncOptions {
  pool: Pool;
  registry: SchemaRegistry;
  logger: Logger;
  /** Folder to load and watch; none means the database is the only source (e.g. `weft records apply`). */
  directory: string | undefined;
  /** How often to look for changes applied elsewhere (another instance, the CLI). */
  pollMilliseconds?: number;
  /** What `{env: NAME}` secret references resolve against when the folder is applied (checked at apply). */
  secrets?: SecretEnvironment;
  /** Runs after every registry reload (e.g. to reload the auth strategies and role bindings). */
  onReload?: () => Promise<void>;
}

/**
 * Keeps the registry in step with the resources: loads the folder into the database at start,
 * applies the folder again whenever a file changes, prunes what the folder no longer declares (see
 * prune-resources), and reloads the registry whenever the stored revision moves (its own applies
 * and prunes, other instances, `weft records apply`).
 */
export class SchemaSync {
  private ready = false;
  private revision = '';
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SchemaSyncOptions) {}

  /** True after the first full load. */
  get isReady(): boolean {
    return this.ready;
  }

  /** First load (folder, back-fill of triggers and search columns, registry), then watching and polling. */
  async start(): Promise<ApplyReport | undefined> {
    const report = this.options.directory ? await this.applyFolder() : undefined;
    await ensureSchemaDdl(this.options.pool, this.options.logger);
    await this.reload();
    await syncRowSecurity(this.options.pool, this.options.registry.all(), this.options.logger);
    this.ready = true;
    if (this.options.directory) {
      this.watcher = watch(this.options.directory, { recursive: true }, () => this.scheduleFolder());
      this.watcher.on('error', (error) =>
        this.options.logger.warn({ err: error }, 'resource folder watch failed'),
      );
    }
    this.poller = setInterval(
      () => void this.serial(() => this.reloadIfChanged()),
      this.options.pollMilliseconds ?? 2000,
    );
    this.poller.unref();
    return report;
  }

  /** Applies the folder now (also what a file change triggers) and reloads; resolves with the report. */
  syncFolder(): Promise<ApplyReport | undefined> {
    return this.serial(async () => {
      if (!this.options.directory) return undefined;
      const report = await this.applyFolder();
      await this.reload();
      return report;
    });
  }

  /** Reloads the registry if anything changed in the database. */
  refresh(): Promise<void> {
    return this.serial(() => this.reloadIfChanged());
  }

  /** Stops watching and polling. */
  close(): void {
    this.watcher?.close();
    clearInterval(this.poller);
    clearTimeout(this.debounce);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'schema sync failed'),
    );
    return next;
  }

  private scheduleFolder(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.syncFolder().catch(() => undefined), 200);
  }

  private async applyFolder(): Promise<ApplyReport> {
    const { logger, pool, directory } = this.options;
    const read = await readResourceDirectory(directory ?? '.');
    const report = await applyResources(pool, read.documents, logger, {
      origin: 'folder',
      ...(this.options.secrets ? { secrets: this.options.secrets } : {}),
    });
    report.rejected.unshift(...read.rejected);
    for (const rejected of report.rejected)
      logger.error(
        { file: rejected.source, path: rejected.path, reason: rejected.reason },
        'resource rejected',
      );
    for (const applied of report.applied) logger.info({ resource: applied }, 'resource applied');
    // As GitOps tools do: a folder that is empty, or has a file that could not be read or parsed,
    // is more likely an accident (a failed mount, a half-written file) than the wish to delete.
    if (read.rejected.length > 0)
      logger.warn(
        { files: [...new Set(read.rejected.map((rejected) => rejected.source))] },
        'resources folder has unreadable or malformed documents: nothing pruned',
      );
    else if (read.documents.length === 0)
      logger.warn({ directory }, 'resources folder has no documents: nothing pruned');
    else await pruneResources(pool, declaredKeys(read.documents), logger);
    return report;
  }

  private async reloadIfChanged(): Promise<void> {
    if ((await currentRevision(this.options.pool)) !== this.revision) await this.reload();
  }

  private async reload(): Promise<void> {
    const loaded = await loadSchemas(this.options.pool, this.options.logger);
    this.options.registry.replace(loaded.schemas);
    this.revision = loaded.revision;
    await this.options.onReload?.();
  }
}
