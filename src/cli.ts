#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError, loadConfig } from './platform/config/index.js';
import { createLogger, type Logger } from './platform/logging/logger.js';
import { migrateServices, runServices, type ServiceName } from './runtime.js';
import { buildInfo } from './platform/build-info.js';
import {
  applyCommand,
  createApiKeyCommand,
  listApiKeysCommand,
  revokeApiKeyCommand,
  rotateApiKeyCommand,
} from './records/cli/records-commands.js';
import { rotateSecretsKeyCommand } from './workflow/cli/rotate-secrets-key-command.js';

/** The console of a service whose API is at `apiUrl` (records answers under /api). */
function consoleUrl(apiUrl: string): string {
  return `${new URL(apiUrl).origin}/console/`;
}

/** Runs services until SIGINT/SIGTERM, then shuts down cleanly; a second signal forces the exit. */
async function serve(services: ServiceName[]): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const running = await runServices(config, services, logger);
  for (const [service, url] of Object.entries(running.urls)) {
    logger.info({ service, url }, `${service} listening`);
    logger.info({ service, url: consoleUrl(url) }, `${service} console at ${consoleUrl(url)}`);
  }
  for (const [service, url] of Object.entries(running.scrapeUrls))
    logger.info({ service, url: `${url}/metrics` }, `${service} metrics listening (no token)`);
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

async function migrateCommand(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  await migrateServices(config, ['workflow', 'records'], logger);
  logger.info('migrations applied');
}

function fail(error: unknown, logger?: Logger): never {
  const message =
    error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
  if (logger) logger.fatal({ err: error }, message);
  process.stderr.write(`weft: ${message}\n`);
  process.exit(1);
}

const program = new Command()
  .name('weft')
  .description('weft: a BPMN workflow service and a schema-driven records service on PostgreSQL')
  .version(buildInfo().server_version);

program
  .command('start')
  .description('run both services in one process')
  .action(() => serve(['workflow', 'records']));
const workflow = program
  .command('workflow')
  .description('run the workflow service (or manage it with a subcommand)')
  .action(() => serve(['workflow']));
workflow
  .command('rotate-secrets-key')
  .description(
    're-encrypt every stored secret under WORKFLOW_SECRETS_KEY (old keys in WORKFLOW_SECRETS_PREVIOUS_KEYS)',
  )
  .action(async () => {
    const config = loadConfig(process.env);
    const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
    const report = await rotateSecretsKeyCommand(config, logger);
    process.stdout.write(`re-encrypted ${report.reencrypted} secret(s) under key ${report.keyId}\n`);
  });
const records = program
  .command('records')
  .description('run the records service (or manage it with a subcommand)')
  .action(() => serve(['records']));
records
  .command('apply')
  .description('apply resource documents (a YAML file or a folder) to the records database')
  .requiredOption('-f, --file <path>', 'YAML file or folder of resources')
  .action(async (options: { file: string }) => {
    const config = loadConfig(process.env);
    const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
    const report = await applyCommand(config, logger, options.file);
    for (const applied of report.applied) process.stdout.write(`applied ${applied}\n`);
    for (const unchanged of report.unchanged) process.stdout.write(`unchanged ${unchanged}\n`);
    for (const rejected of report.rejected)
      process.stderr.write(`rejected ${rejected.source}: ${rejected.path}: ${rejected.reason}\n`);
    if (report.rejected.length > 0) process.exitCode = 1;
  });
const apiKeys = records.command('api-key').description('manage records API keys');
/** Config and a quiet logger for a one-shot records command. */
function commandSetup(): { config: ReturnType<typeof loadConfig>; logger: Logger } {
  const config = loadConfig(process.env);
  return { config, logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel) };
}
apiKeys
  .command('create')
  .description('create an API key; its plaintext is printed once')
  .requiredOption('--actor <actor>', 'actor id of the key')
  .requiredOption('--roles <roles>', 'comma-separated roles')
  .option('--ttl <duration>', 'lifetime, e.g. 30d, 12h')
  .option('--allow <cidr...>', 'client address ranges allowed to use the key')
  .option('--scope <scope...>', 'token scopes the key grants (see requiredScopes)')
  .option('--label <text>', 'a name to tell the key apart in a list')
  .action(
    async (options: {
      actor: string;
      roles: string;
      ttl?: string;
      allow?: string[];
      scope?: string[];
      label?: string;
    }) => {
      const { config, logger } = commandSetup();
      const key = await createApiKeyCommand(config, logger, options);
      process.stdout.write(
        `${key.plaintext}\n(id ${key.id}${key.expiresAt ? `, expires ${key.expiresAt.toISOString()}` : ''}; shown once)\n`,
      );
    },
  );
apiKeys
  .command('list')
  .description(
    'list API keys that still work (with --all: also revoked and expired ones); never their secret',
  )
  .option('--actor <actor>', 'only the keys of this actor')
  .option('--all', 'include revoked and expired keys')
  .option('--json', 'one JSON object per line')
  .action(async (options: { actor?: string; all?: boolean; json?: boolean }) => {
    const { config, logger } = commandSetup();
    const keys = await listApiKeysCommand(config, logger, options);
    for (const key of keys) {
      if (options.json) {
        process.stdout.write(`${JSON.stringify(key)}\n`);
        continue;
      }
      const until = key.expiresAt ? key.expiresAt.toISOString() : 'never';
      process.stdout.write(
        `${key.id}  ${key.status.padEnd(7)}  ${key.actor}  roles=${key.roles.join(',')}  expires=${until}` +
          `${key.label ? `  label=${JSON.stringify(key.label)}` : ''}\n`,
      );
    }
    if (keys.length === 0 && !options.json) process.stderr.write('no API keys\n');
  });
apiKeys
  .command('revoke')
  .description('revoke an API key: the next request with it is refused on every instance')
  .argument('<id>', 'the key id (from list)')
  .action(async (id: string) => {
    const { config, logger } = commandSetup();
    const outcome = await revokeApiKeyCommand(config, logger, id);
    process.stdout.write(outcome === 'revoked' ? `revoked ${id}\n` : `${id} was already revoked\n`);
  });
apiKeys
  .command('rotate')
  .description(
    'replace an API key by a new one (printed once); the old one is revoked, or expires after --grace',
  )
  .argument('<id>', 'the key id (from list)')
  .option('--grace <duration>', 'how long the old key keeps working, e.g. 15m, 1d (default: revoked now)')
  .option('--ttl <duration>', "lifetime of the new key (default: the old key's lifetime)")
  .action(async (id: string, options: { grace?: string; ttl?: string }) => {
    const { config, logger } = commandSetup();
    const key = await rotateApiKeyCommand(config, logger, id, options);
    const old = key.oldUntil ? `works until ${key.oldUntil.toISOString()}` : 'is revoked';
    process.stdout.write(
      `${key.plaintext}\n(id ${key.id}${key.expiresAt ? `, expires ${key.expiresAt.toISOString()}` : ''}; shown once; the old key ${id} ${old})\n`,
    );
  });
program
  .command('migrate')
  .description('apply pending migrations of both services and exit')
  .action(migrateCommand);

program.parseAsync(process.argv).catch((error: unknown) => fail(error));
