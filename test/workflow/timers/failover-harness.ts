/**
 * A process that runs only a timer LeaderElection and the timer executor against a database, and
 * prints one JSON line per event on stdout, for a two-process failover test (SIGKILL the leader,
 * watch the other take over and fire the rest exactly once).
 *
 *   npx tsx test/workflow/timers/failover-harness.ts <database-url> [name] [retry-interval-ms]
 *
 * Lines: {"event":"ready"}, {"event":"elected"}, {"event":"lost","reason":…},
 * {"event":"fired","job":id,"element":…,"fired_count":n,"due_at":…,"at":…}, {"event":"stopped"}.
 * The handler records nothing in the database: a test counts firings from the lines, or from the
 * rows the timers leave (one-shot timers are deleted when they fire). SIGTERM/SIGINT stop cleanly.
 */
import { systemClock } from '../../../src/platform/clock.js';
import { createPool } from '../../../src/platform/database/pool.js';
import { LeaderElection } from '../../../src/workflow/timers/leader.js';
import { runWhileLeader } from '../../../src/workflow/timers/leader-duties.js';
import { createTimerExecutor } from '../../../src/workflow/timers/timer-executor.js';

const [url, name = `harness-${process.pid}`, interval = '200'] = process.argv.slice(2);
if (!url) {
  console.error('usage: failover-harness.ts <database-url> [name] [retry-interval-ms]');
  process.exit(2);
}

const print = (event: string, fields: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ event, name, pid: process.pid, ...fields })}\n`);
};

const pool = createPool(url, { max: 4, applicationName: `weft-${name}` });
const executor = createTimerExecutor({
  pool,
  clock: systemClock,
  pollIntervalMs: Number(interval),
  handle: (job, _client, now) => {
    print('fired', {
      job: job.id,
      element: job.elementId,
      fired_count: job.firedCount,
      due_at: job.dueAt.toISOString(),
      at: now.toISOString(),
    });
    return Promise.resolve();
  },
  onError: (job, error) => {
    print('exhausted', { job: job.id, error: String(error) });
    return Promise.resolve();
  },
});
const election = new LeaderElection({
  connectionString: url,
  retryIntervalMs: Number(interval),
  applicationName: `weft-leader-${name}`,
});
election.on('elected', () => print('elected'));
election.on('lost', (reason) => print('lost', { reason }));
const detach = runWhileLeader(election, [executor]);
election.start();
print('ready');

const shutdown = async (): Promise<void> => {
  await detach();
  await election.stop();
  await pool.end();
  print('stopped');
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
