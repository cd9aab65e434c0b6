import { isIP } from 'node:net';
import path from 'node:path';
import Value from 'typebox/value';
import type { DatabaseTimeouts } from '../database/pool.js';
import { Ed25519Signer, pemFromEnvironment } from '../crypto/ed25519-signer.js';
import { archiveStoreConfigOf, type ArchiveStoreConfig } from './archive-store-config.js';
import { environmentSchema, environmentVariableNames, type Environment } from './environment.js';

/** The typed, frozen configuration of one weft process. Nothing else reads `process.env`. */
export interface Config {
  readonly production: boolean;
  readonly host: string;
  readonly dataDir: string;
  readonly logLevel: Environment['WEFT_LOG_LEVEL'];
  readonly embeddedPostgresPort: number;
  readonly databasePoolSize: number;
  /** Timeouts of the request pools (the runtime login). */
  readonly databaseTimeouts: DatabaseTimeouts;
  /** Timeouts of the owner pools (migrations, DDL and the jobs that run as the owner). */
  readonly adminDatabaseTimeouts: DatabaseTimeouts;
  /** How long `/health` (workflow) and `/api/healthz`, `/api/readyz` (records) wait for the database. */
  readonly healthTimeoutMs: number;
  readonly http: HttpTimeouts;
  /** Longest wait for one Redis command. */
  readonly redisCommandTimeoutMs: number;
  readonly bodyLimitBytes: number;
  readonly maxJsonDepth: number;
  readonly redisUrl: string | undefined;
  readonly workflow: WorkflowConfig;
  readonly records: RecordsConfig;
}

/** How long a client may take to send a request. */
export interface HttpTimeouts {
  /** The request line and headers. */
  readonly headersTimeoutMs: number;
  /** The body, from the end of the headers. */
  readonly bodyTimeoutMs: number;
}

/** Bounds of fetch-and-lock long polls. */
export interface LongPollLimits {
  /** Concurrent long polls of one client. */
  readonly perClient: number;
  /** Concurrent long polls of this instance. */
  readonly total: number;
}

/** Configuration of the workflow service. */
export interface WorkflowConfig {
  readonly port: number;
  /** The runtime login (requests); the embedded database's own runtime login when unset. */
  readonly databaseUrl: string | undefined;
  /** The owner login (migrations, history retention); `databaseUrl` when unset. */
  readonly migrationDatabaseUrl: string | undefined;
  readonly jwtSigningKey: string | undefined;
  readonly jwtTtlSeconds: number;
  /** Upper bound on the age of a cached identity (invalidation is by NOTIFY); 0 turns the cache off. */
  readonly identityCacheMs: number;
  readonly tenantIsolation: string;
  readonly bootstrapAdminEmail: string | undefined;
  readonly bootstrapAdminPassword: string | undefined;
  readonly bootstrapAdminOrgSlug: string | undefined;
  readonly loginAttemptsPerMinute: number;
  readonly engineMaxSteps: number;
  /** Instances one multi-instance activity may have; more is an incident. */
  readonly engineMaxMultiInstance: number;
  /** Days the history of a finished instance is kept before the leader's housekeeping deletes it. */
  readonly historyRetentionDays: number;
  /**
   * Days the rows of a finished instance are kept before the leader's housekeeping deletes them
   * (WORKFLOW_INSTANCE_RETENTION_DAYS); undefined: kept. Never shorter than the instance's history.
   */
  readonly instanceRetentionDays: number | undefined;
  /** Instances one batch may hold (WORKFLOW_BATCH_MAX_ITEMS). */
  readonly batchMaxItems: number;
  /** How long the timer leader lease lasts unless renewed. */
  readonly leaderLeaseMs: number;
  /** Between two renewals of the timer leader lease (shorter than the lease). */
  readonly leaderHeartbeatMs: number;
  readonly scripts: ScriptsConfig;
  readonly secrets: SecretsConfig;
  readonly connectors: ConnectorsConfig;
  /** `required`: the external-task endpoints need a token of a Worker and are scoped to its orgs. */
  readonly externalTasksAuth: ExternalTasksAuth;
  readonly longPolls: LongPollLimits;
  readonly feel: FeelConfig;
}

/** Bounds on FEEL evaluation and on what one deployed DMN file may contain. */
export interface FeelConfig {
  readonly timeoutMs: number;
  readonly maxListLength: number;
  readonly maxExpressionLength: number;
  readonly dmnMaxElements: number;
  readonly dmnMaxExpressions: number;
}

/** Who may call the external-task endpoints: anyone (the spec's default), or a Worker with a token. */
export type ExternalTasksAuth = Environment['WORKFLOW_EXTERNAL_TASKS_AUTH'];

/** Keys of the secrets store (base64 text, validated as 32 bytes by the keyring). */
export interface SecretsConfig {
  /** The key new values are encrypted with; undefined means the development key (refused in production). */
  readonly key: string | undefined;
  /** Earlier keys, readable until the values are re-encrypted. */
  readonly previousKeys: readonly string[];
}

/** Limits of the HTTP push connector. */
export interface ConnectorsConfig {
  /** Connector jobs one instance runs at once. */
  readonly concurrency: number;
  /** Largest response body read, in bytes. */
  readonly maxResponseBytes: number;
}

/** Configuration of the script sandbox that runs Script Task pipelines (jq, FEEL, Rhai). */
export interface ScriptsConfig {
  /** Worker threads of the sandbox. */
  readonly workers: number;
  /** Wall-clock limit of one step in milliseconds. */
  readonly stepTimeoutMs: number;
  /** Rhai interpreter limits; `disabledSymbols` always contains `eval`. */
  readonly rhai: {
    readonly maxOperations: number;
    readonly maxCallLevels: number;
    readonly maxExprDepth: number;
    readonly disabledSymbols: readonly string[];
  };
}

/** Configuration of the records service. */
export interface RecordsConfig {
  readonly port: number;
  /** The separate, unauthenticated `GET /metrics` listener for scrapers; undefined when off. */
  readonly metricsListener: { readonly host: string; readonly port: number } | undefined;
  /** The runtime login (requests); the embedded database's own runtime login when unset. */
  readonly databaseUrl: string | undefined;
  /** The owner login (migrations, DDL, jobs); `databaseUrl` when unset. */
  readonly migrationDatabaseUrl: string | undefined;
  /** Folder of resource documents; undefined means `./resources`, else (not in production) the bundled examples. */
  readonly resourcesDir: string | undefined;
  readonly jwt: {
    readonly issuer: string | undefined;
    readonly audience: string | undefined;
    readonly secret: string | undefined;
    readonly publicKey: string | undefined;
    readonly rolesClaim: string;
  };
  readonly rateLimits: { readonly perMinute: number; readonly search: number; readonly archiveQuery: number };
  /** Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` is believed. */
  readonly trustedProxies: readonly string[];
  readonly revocation: { readonly pollMilliseconds: number; readonly graceMilliseconds: number };
  /**
   * The process environment at start-up minus weft's own variables: what a resource's secret
   * reference `{env: NAME}` (e.g. an OIDC `clientSecret`) may name.
   */
  readonly secretEnvironment: Readonly<Record<string, string>>;
  readonly audit: RecordsAuditConfig;
  /** Days an auth audit entry is kept (RECORDS_AUTH_AUDIT_RETENTION_DAYS); undefined: kept. */
  readonly authAuditRetentionDays: number | undefined;
  /** Where the archive files live. */
  readonly archive: ArchiveStoreConfig;
}

/** Anchoring of the audit chain outside the database (docs/records/audit.md). */
export interface RecordsAuditConfig {
  /** Ed25519 private key PEM signing checkpoints; undefined: the chain is not anchored. Never logged. */
  readonly signingKey: string | undefined;
  /** Folder of the append-only checkpoint file. */
  readonly anchorDir: string;
  readonly anchorIntervalMilliseconds: number;
}

/** Thrown at boot when a variable is invalid; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads the environment once into a validated, frozen Config. Empty strings count as unset.
 * Throws ConfigError naming every invalid variable.
 */
export function loadConfig(source: Readonly<Record<string, string | undefined>>): Config {
  const raw: Record<string, string> = {};
  for (const name of environmentVariableNames) {
    const value = source[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  // Before the conversion, which rewrites `raw` in place.
  const notWhole = Object.keys(raw).filter(isNotWholeNumber(raw));
  const shownValues = { ...raw };
  const converted = Value.Convert(environmentSchema, Value.Default(environmentSchema, raw));
  const errors = [...Value.Errors(environmentSchema, converted)].map((error) => ({
    variable: error.instancePath.replace(/^\//, '') || '(environment)',
    message: error.message,
  }));
  if (errors.length > 0 || notWhole.length > 0) {
    const lines = [
      ...notWhole.map((variable) => ({ variable, message: 'must be a whole number (digits only)' })),
      ...errors.filter((error) => !notWhole.includes(error.variable)),
    ].map(({ variable, message }) => {
      // Keys, passwords and URLs (which may carry a password) are never echoed back.
      const shown =
        variable in shownValues && !/KEY|PASSWORD|SECRET|TOKEN|URL/.test(variable)
          ? ` (got ${JSON.stringify(shownValues[variable])})`
          : '';
      return `${variable}: ${message}${allowedValues(variable)}${shown}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const env = converted as Environment;
  const signingKey =
    env.RECORDS_AUDIT_SIGNING_KEY === undefined
      ? undefined
      : pemFromEnvironment(env.RECORDS_AUDIT_SIGNING_KEY);
  if (signingKey !== undefined && Ed25519Signer.fromPem(signingKey) === undefined)
    throw new ConfigError(
      'Invalid configuration:\n  RECORDS_AUDIT_SIGNING_KEY: must be an Ed25519 private key in PEM (PKCS#8)',
    );
  const leaderHeartbeat =
    env.WORKFLOW_LEADER_HEARTBEAT_MS ?? Math.max(100, Math.floor(env.WORKFLOW_LEADER_LEASE_MS / 3));
  if (leaderHeartbeat >= env.WORKFLOW_LEADER_LEASE_MS)
    throw new ConfigError(
      `Invalid configuration:\n  WORKFLOW_LEADER_HEARTBEAT_MS: must be shorter than WORKFLOW_LEADER_LEASE_MS (${env.WORKFLOW_LEADER_LEASE_MS})`,
    );
  const archive = archiveStoreConfigOf(env);
  if (typeof archive === 'string') throw new ConfigError(`Invalid configuration:\n  ${archive}`);
  const badProxy = env.RECORDS_TRUSTED_PROXIES.split(',')
    .map((entry) => entry.trim())
    .find((entry) => entry !== '' && !isAddressOrCidr(entry));
  if (badProxy !== undefined)
    throw new ConfigError(
      `Invalid configuration:\n  RECORDS_TRUSTED_PROXIES: ${JSON.stringify(badProxy)} is not an address or CIDR range`,
    );
  return deepFreeze({
    production: env.NODE_ENV === 'production',
    host: env.WEFT_HOST,
    dataDir: path.resolve(env.WEFT_DATA_DIR),
    logLevel: env.WEFT_LOG_LEVEL,
    embeddedPostgresPort: env.WEFT_EMBEDDED_POSTGRES_PORT,
    databasePoolSize: env.WEFT_DATABASE_POOL_SIZE,
    databaseTimeouts: {
      statementMs: env.WEFT_DATABASE_STATEMENT_TIMEOUT_MS,
      connectMs: env.WEFT_DATABASE_CONNECT_TIMEOUT_MS,
    },
    adminDatabaseTimeouts: {
      statementMs: env.WEFT_DATABASE_ADMIN_STATEMENT_TIMEOUT_MS,
      connectMs: env.WEFT_DATABASE_CONNECT_TIMEOUT_MS,
    },
    healthTimeoutMs: env.WEFT_HEALTH_TIMEOUT_MS,
    http: {
      headersTimeoutMs: env.WEFT_REQUEST_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: env.WEFT_REQUEST_BODY_TIMEOUT_MS,
    },
    redisCommandTimeoutMs: env.WEFT_REDIS_COMMAND_TIMEOUT_MS,
    bodyLimitBytes: env.WEFT_BODY_LIMIT_BYTES,
    maxJsonDepth: env.WEFT_JSON_MAX_DEPTH,
    redisUrl: env.REDIS_URL,
    workflow: {
      port: env.WORKFLOW_PORT,
      databaseUrl: env.WORKFLOW_DATABASE_URL,
      migrationDatabaseUrl: env.WORKFLOW_MIGRATION_DATABASE_URL,
      jwtSigningKey: env.WORKFLOW_JWT_SIGNING_KEY,
      jwtTtlSeconds: env.WORKFLOW_JWT_TTL_SECONDS,
      identityCacheMs: env.WORKFLOW_IDENTITY_CACHE_MS,
      tenantIsolation: env.WORKFLOW_TENANT_ISOLATION,
      bootstrapAdminEmail: env.WORKFLOW_BOOTSTRAP_ADMIN_EMAIL,
      bootstrapAdminPassword: env.WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD,
      bootstrapAdminOrgSlug: env.WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG,
      loginAttemptsPerMinute: env.WORKFLOW_LOGIN_ATTEMPTS_PER_MINUTE,
      engineMaxSteps: env.WORKFLOW_ENGINE_MAX_STEPS,
      engineMaxMultiInstance: env.WORKFLOW_MAX_MULTI_INSTANCE,
      historyRetentionDays: env.WORKFLOW_HISTORY_RETENTION_DAYS,
      instanceRetentionDays: env.WORKFLOW_INSTANCE_RETENTION_DAYS,
      batchMaxItems: env.WORKFLOW_BATCH_MAX_ITEMS,
      leaderLeaseMs: env.WORKFLOW_LEADER_LEASE_MS,
      leaderHeartbeatMs: leaderHeartbeat,
      scripts: {
        workers: env.WORKFLOW_SCRIPT_WORKERS,
        stepTimeoutMs: env.WORKFLOW_SCRIPT_STEP_TIMEOUT_MS,
        rhai: {
          maxOperations: env.WORKFLOW_RHAI_MAX_OPERATIONS,
          maxCallLevels: env.WORKFLOW_RHAI_MAX_CALL_LEVELS,
          maxExprDepth: env.WORKFLOW_RHAI_MAX_EXPR_DEPTHS,
          disabledSymbols: disabledSymbolsOf(env.WORKFLOW_RHAI_DISABLED_SYMBOLS),
        },
      },
      secrets: {
        key: env.WORKFLOW_SECRETS_KEY,
        previousKeys: (env.WORKFLOW_SECRETS_PREVIOUS_KEYS ?? '')
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      },
      connectors: {
        concurrency: env.WORKFLOW_CONNECTOR_CONCURRENCY,
        maxResponseBytes: env.WORKFLOW_CONNECTOR_MAX_RESPONSE_BYTES,
      },
      externalTasksAuth: env.WORKFLOW_EXTERNAL_TASKS_AUTH,
      feel: {
        timeoutMs: env.WORKFLOW_FEEL_TIMEOUT_MS,
        maxListLength: env.WORKFLOW_FEEL_MAX_LIST_LENGTH,
        maxExpressionLength: env.WORKFLOW_FEEL_MAX_EXPRESSION_LENGTH,
        dmnMaxElements: env.WORKFLOW_DMN_MAX_ELEMENTS,
        dmnMaxExpressions: env.WORKFLOW_DMN_MAX_EXPRESSIONS,
      },
      longPolls: { perClient: env.WORKFLOW_LONG_POLLS_PER_CLIENT, total: env.WORKFLOW_LONG_POLLS_MAX },
    },
    records: {
      port: env.RECORDS_PORT,
      metricsListener:
        env.RECORDS_METRICS_PORT === undefined
          ? undefined
          : { host: env.RECORDS_METRICS_HOST ?? env.WEFT_HOST, port: env.RECORDS_METRICS_PORT },
      databaseUrl: env.RECORDS_DATABASE_URL,
      migrationDatabaseUrl: env.RECORDS_MIGRATION_DATABASE_URL,
      resourcesDir: env.RECORDS_RESOURCES_DIR,
      jwt: {
        issuer: env.RECORDS_JWT_ISSUER,
        audience: env.RECORDS_JWT_AUDIENCE,
        secret: env.RECORDS_JWT_SECRET,
        publicKey: env.RECORDS_JWT_PUBLIC_KEY,
        rolesClaim: env.RECORDS_JWT_ROLES_CLAIM,
      },
      rateLimits: {
        perMinute: env.RECORDS_RATE_LIMIT_PER_MINUTE,
        search: env.RECORDS_SEARCH_RATE_LIMIT,
        archiveQuery: env.RECORDS_ARCHIVE_RATE_LIMIT,
      },
      trustedProxies: env.RECORDS_TRUSTED_PROXIES.split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
      revocation: {
        pollMilliseconds: env.RECORDS_REVOCATION_POLL_MS,
        graceMilliseconds: env.RECORDS_REVOCATION_GRACE_MS,
      },
      audit: {
        signingKey,
        anchorDir: path.resolve(
          env.RECORDS_AUDIT_ANCHOR_DIR ?? path.join(env.WEFT_DATA_DIR, 'audit-anchors'),
        ),
        anchorIntervalMilliseconds: env.RECORDS_AUDIT_ANCHOR_INTERVAL_MS,
      },
      authAuditRetentionDays: env.RECORDS_AUTH_AUDIT_RETENTION_DAYS,
      archive,
      secretEnvironment: secretEnvironmentOf(source),
    },
  });
}

// The schema's conversion reads `1.5` as 1 and `1e1` or `0x10` as numbers: a whole-number setting
// takes digits and nothing else, so a typo never becomes a different limit.
function isNotWholeNumber(raw: Record<string, string>): (variable: string) => boolean {
  return (variable) => {
    const schema: unknown = (environmentSchema.properties as Record<string, unknown>)[variable];
    return (schema as { type?: unknown } | undefined)?.type === 'integer' && !/^\d+$/.test(raw[variable]!);
  };
}

// Names the accepted values of an enumerated variable, which the schema's own message does not.
function allowedValues(variable: string): string {
  const schema: unknown = (environmentSchema.properties as Record<string, unknown>)[variable];
  const values = (schema as { enum?: unknown } | undefined)?.enum;
  return Array.isArray(values) ? `: ${values.map((value) => JSON.stringify(value)).join(', ')}` : '';
}

// weft's own settings (database URLs, signing keys) are never a resource's secret: a document
// naming one would hand it to whatever the document points at.
function secretEnvironmentOf(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const own = new Set<string>(environmentVariableNames);
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(source))
    if (value !== undefined && value !== '' && !own.has(name)) copy[name] = value;
  return copy;
}

// `eval` stays disabled whatever the list says (spec, Limits).
function disabledSymbolsOf(list: string): string[] {
  const symbols = list
    .split(',')
    .map((symbol) => symbol.trim())
    .filter((symbol) => symbol !== '');
  return [...new Set(['eval', ...symbols])];
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix] = entry.split('/');
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === 'object') deepFreeze(child as object);
  }
  return Object.freeze(value);
}
