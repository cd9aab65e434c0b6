/**
 * The records archive job in a process of its own, for crash tests: a records service on
 * `RECORDS_DATABASE_URL` (owner login) and `WEFT_DATA_DIR` (the archive's files), whose own interval
 * job is stopped, then an archive job with small batches and file sets run until nothing is left
 * to move; prints `started`, then `done` and exits 0.
 *
 * `ARCHIVE_CRASH_AT` makes the process SIGKILL itself at a chosen point, to reach moments a timer
 * hits only by luck: `put:N` right after the Nth object upload completed (a file set partly or
 * wholly uploaded, not listed), `commit:N` right after the Nth COMMIT was sent (the server may or
 * may not have received it).
 */
import pg from 'pg';
import { loadConfig } from '../../../src/platform/config/index.js';
import { systemClock } from '../../../src/platform/clock.js';
import { createPool } from '../../../src/platform/database/pool.js';
import { createLogger } from '../../../src/platform/logging/logger.js';
import { ArchiveJob } from '../../../src/records/archive/archive-job.js';
import { LocalObjectStore } from '../../../src/records/archive/store/local-object-store.js';
import { createRecordsService } from '../../../src/records/index.js';
import path from 'node:path';

const [point, countText] = (process.env.ARCHIVE_CRASH_AT ?? '').split(':');
const crashAfter = Number(countText ?? 0);
const die = () => process.kill(process.pid, 'SIGKILL');
/** Only the job's own work counts (not the service's start-up, which applies the resources). */
let armed = false;

class CrashingStore extends LocalObjectStore {
  private puts = 0;
  override async putFile(key: string, source: string): Promise<void> {
    await super.putFile(key, source);
    this.puts += 1;
    if (point === 'put' && this.puts === crashAfter) die();
  }
}

if (point === 'commit') {
  let commits = 0;
  // Wraps pg's query method (a plain function called with the client as `this`).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const result = query.apply(this, args);
    if (armed && args[0] === 'COMMIT' && (commits += 1) === crashAfter) die();
    return result;
  } as typeof pg.Client.prototype.query;
}

const config = loadConfig(process.env);
const pool = createPool(config.records.databaseUrl ?? '', {
  max: 4,
  applicationName: 'weft-test-archive-job',
});
const logger = createLogger('silent');
const service = await createRecordsService({
  config,
  pool,
  ownerPool: pool,
  logger,
  archiveStore: new CrashingStore(path.join(config.dataDir, 'archive')),
});
await service.archive.close();
const job = new ArchiveJob({
  pool,
  registry: service.registry,
  clock: systemClock,
  logger,
  files: service.archiveFiles,
  batchSize: Number(process.env.ARCHIVE_BATCH_SIZE ?? 7),
  fileSetSize: Number(process.env.ARCHIVE_FILE_SET_SIZE ?? 5),
});
armed = true;
process.stdout.write('started\n');
// A run archives every due record, then exports every staged one; a second run finds nothing.
while ((await job.runOnce()) > 0);
await job.runOnce();
await service.close();
await pool.end();
process.stdout.write('done\n');
process.exit(0);
