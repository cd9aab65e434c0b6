#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError, loadConfig } from './platform/config/index.js';
import { createLogger, type Logger } from './platform/logging/logger.js';
import { migrateServices, runServices, type ServiceName } from './runtime.js';
import { buildInfo } from './platform/build-info.js';
import { applyCommand, createApiKeyCommand } from './records/cli/records-commands.js';
import { rotateSecretsKeyCommand } from './workflow/cli/rotate-secrets-key-command.js';

/** Runs services until SIGINT/SIGTERM, then shuts down cleanly; a second signal forces the exit. */
async function serve(services: ServiceName[]): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const running = await runServices(config, services, logger);
  for (const [service, url] of Object.entries(running.urls))
    logger.info({ service, url }, `${service} listening`);
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
records
  .command('api-key')
  .description('manage records API keys')
  .command('create')
  .description('create an API key; its plaintext is printed once')
  .requiredOption('--actor <actor>', 'actor id of the key')
  .requiredOption('--roles <roles>', 'comma-separated roles')
  .option('--ttl <duration>', 'lifetime, e.g. 30d, 12h')
  .option('--allow <cidr...>', 'client address ranges allowed to use the key')
  .option('--scope <scope...>', 'token scopes the key grants (see requiredScopes)')
  .action(
    async (options: { actor: string; roles: string; ttl?: string; allow?: string[]; scope?: string[] }) => {
      const config = loadConfig(process.env);
      const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
      const key = await createApiKeyCommand(config, logger, options);
      process.stdout.write(
        `${key.plaintext}\n(id ${key.id}${key.expiresAt ? `, expires ${key.expiresAt.toISOString()}` : ''}; shown once)\n`,
      );
    },
  );
program
  .command('migrate')
  .description('apply pending migrations of both services and exit')
  .action(migrateCommand);

program.parseAsync(process.argv).catch((error: unknown) => fail(error));
