import Type, { type Static } from 'typebox';

/**
 * Every environment variable weft reads, with its default and meaning. The README's configuration
 * table is checked against this list by a test, so the two cannot drift apart.
 */
export const environmentSchema = Type.Object({
  NODE_ENV: Type.String({
    default: 'development',
    description: '`production` refuses development defaults for secrets',
  }),
  WEFT_HOST: Type.String({
    default: '127.0.0.1',
    minLength: 1,
    description: 'Address both services listen on',
  }),
  WEFT_DATA_DIR: Type.String({
    default: './.weft',
    minLength: 1,
    description: 'Embedded PostgreSQL data and generated development keys',
  }),
  WEFT_LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'pino log level',
  }),
  WEFT_EMBEDDED_POSTGRES_PORT: Type.Integer({
    default: 54329,
    minimum: 1,
    maximum: 65535,
    description: 'Port of the embedded PostgreSQL (used only when a database URL is unset)',
  }),
  WEFT_DATABASE_POOL_SIZE: Type.Integer({
    default: 10,
    minimum: 1,
    maximum: 500,
    description: 'Connections per service pool',
  }),
  WEFT_DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({
    default: 15_000,
    minimum: 0,
    maximum: 3_600_000,
    description:
      'Longest statement of request work (`statement_timeout`, and the client gives up 1 s later when no answer comes); a timeout is 503. 0: no limit',
  }),
  WEFT_DATABASE_ADMIN_STATEMENT_TIMEOUT_MS: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 86_400_000,
    description:
      'Longest statement of the owner login (migrations, DDL, retention, archive, snapshots, audit anchors). 0: no limit',
  }),
  WEFT_DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({
    default: 5_000,
    minimum: 100,
    maximum: 600_000,
    description: 'Longest wait for a database connection (opening one, or a free one of the pool); then 503',
  }),
  WEFT_HEALTH_TIMEOUT_MS: Type.Integer({
    default: 2_000,
    minimum: 50,
    maximum: 60_000,
    description: 'How long a health probe waits for the database before answering 503',
  }),
  WEFT_REQUEST_HEADERS_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    maximum: 600_000,
    description:
      'Longest time a client may take to send the request line and headers; the connection is then closed',
  }),
  WEFT_REQUEST_BODY_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    maximum: 600_000,
    description:
      'Longest time a client may take to send a request body after its headers; then 408 and the connection is closed',
  }),
  WEFT_BODY_LIMIT_BYTES: Type.Integer({
    default: 4 * 1024 * 1024,
    minimum: 1024,
    description: 'Largest accepted request body; larger bodies get 413',
  }),
  WEFT_JSON_MAX_DEPTH: Type.Integer({
    default: 128,
    minimum: 8,
    maximum: 1000,
    description: 'Deepest nesting of arrays and objects in a request body; deeper bodies get 400',
  }),
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://',
      description: 'Redis for shared rate-limit counters; in-process (single instance) when unset',
    }),
  ),
  WEFT_REDIS_COMMAND_TIMEOUT_MS: Type.Integer({
    default: 500,
    minimum: 10,
    maximum: 60_000,
    description:
      'Longest wait for a Redis command (rate limits, revocation store); then the request goes on without it or, fail-closed, gets 503',
  }),
  WORKFLOW_PORT: Type.Integer({
    default: 8080,
    minimum: 0,
    maximum: 65535,
    description: 'Workflow service port',
  }),
  WORKFLOW_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'Workflow database login the service serves requests with (owns nothing; history append-only); embedded PostgreSQL database `workflow` when unset',
    }),
  ),
  WORKFLOW_MIGRATION_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'Workflow database login that owns the tables and runs migrations and history retention; WORKFLOW_DATABASE_URL when unset',
    }),
  ),
  WORKFLOW_JWT_SIGNING_KEY: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        'HS256 key for login JWTs (at least 32 characters); generated into WEFT_DATA_DIR in development',
    }),
  ),
  WORKFLOW_JWT_TTL_SECONDS: Type.Integer({
    default: 3600,
    minimum: 1,
    description: 'Lifetime of login JWTs',
  }),
  WORKFLOW_IDENTITY_CACHE_MS: Type.Integer({
    default: 30_000,
    minimum: 0,
    maximum: 3_600_000,
    description:
      'How long a process may serve an authenticated user or API key from memory; every change invalidates it at once (NOTIFY); 0 reads the database on every request',
  }),
  WORKFLOW_TENANT_ISOLATION: Type.String({
    default: 'multi',
    minLength: 1,
    description: '`single` refuses to start with no users and no bootstrap admin',
  }),
  WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: Type.Optional(
    Type.String({ minLength: 3, description: 'First PlatformAdmin, created when no user exists' }),
  ),
  WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: Type.Optional(
    Type.String({ minLength: 1, description: 'Password of the first PlatformAdmin' }),
  ),
  WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG: Type.Optional(
    Type.String({ description: 'Deprecated and ignored; a warning is logged when set' }),
  ),
  WORKFLOW_ENGINE_MAX_STEPS: Type.Integer({
    default: 1000,
    minimum: 10,
    maximum: 1_000_000,
    description:
      'Elements one token may enter in one transaction before it stops with an incident (a loop without a wait)',
  }),
  WORKFLOW_MAX_MULTI_INSTANCE: Type.Integer({
    default: 1000,
    minimum: 1,
    maximum: 100_000,
    description:
      'Instances one multi-instance activity may have (loop cardinality or input collection size); more is an incident on the activity',
  }),
  WORKFLOW_BATCH_MAX_ITEMS: Type.Integer({
    default: 1_000_000,
    minimum: 1,
    maximum: 10_000_000,
    description:
      'Instances one batch may hold; a batch whose selection is larger is refused (400) and nothing is created',
  }),
  WORKFLOW_HISTORY_RETENTION_DAYS: Type.Integer({
    default: 30,
    minimum: 1,
    maximum: 36_500,
    description:
      'Days the execution history of a finished instance is kept; the timer leader then deletes it in small batches',
  }),
  WORKFLOW_INSTANCE_RETENTION_DAYS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36_500,
      description:
        'Days the rows of a finished instance are kept (never less than its history); unset: finished instances are kept',
    }),
  ),
  WORKFLOW_LEADER_LEASE_MS: Type.Integer({
    default: 15_000,
    minimum: 300,
    maximum: 600_000,
    description:
      'How long the timer leader lease lasts unless renewed: a frozen leader is replaced within about this long',
  }),
  WORKFLOW_LEADER_HEARTBEAT_MS: Type.Optional(
    Type.Integer({
      minimum: 100,
      description: 'Between two renewals of the timer leader lease; a third of the lease when unset',
    }),
  ),
  WORKFLOW_LOGIN_ATTEMPTS_PER_MINUTE: Type.Integer({
    default: 10,
    minimum: 1,
    description: 'Failed-or-pending login attempts allowed per email and per client address per minute',
  }),
  WORKFLOW_SCRIPT_WORKERS: Type.Integer({
    default: 2,
    minimum: 1,
    maximum: 64,
    description: 'Worker threads of the script sandbox (Script Task steps and the script test endpoint)',
  }),
  WORKFLOW_SCRIPT_STEP_TIMEOUT_MS: Type.Integer({
    default: 2000,
    minimum: 10,
    maximum: 600_000,
    description: 'Wall-clock limit of one script step; its worker is then terminated and replaced',
  }),
  WORKFLOW_RHAI_MAX_OPERATIONS: Type.Integer({
    default: 100_000,
    minimum: 1,
    description: 'Hard cap on operations per Rhai script',
  }),
  WORKFLOW_RHAI_MAX_CALL_LEVELS: Type.Integer({
    default: 20,
    minimum: 1,
    maximum: 1000,
    description: 'Rhai function-call depth',
  }),
  WORKFLOW_RHAI_MAX_EXPR_DEPTHS: Type.Integer({
    default: 64,
    minimum: 2,
    maximum: 1000,
    description: 'Rhai expression and statement nesting depth',
  }),
  WORKFLOW_RHAI_DISABLED_SYMBOLS: Type.String({
    default: 'eval,print,debug',
    pattern: '^\\s*[^,\\s]+(\\s*,\\s*[^,\\s]+)*\\s*$',
    description: 'Comma-separated Rhai symbols that are a parse error; `eval` is always disabled',
  }),
  WORKFLOW_SECRETS_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'AES-256-GCM key of stored secrets: 32 bytes in base64; generated into WEFT_DATA_DIR in development',
    }),
  ),
  WORKFLOW_SECRETS_PREVIOUS_KEYS: Type.Optional(
    Type.String({
      pattern: '^\\s*[A-Za-z0-9+/]{43}=(\\s*,\\s*[A-Za-z0-9+/]{43}=)*\\s*$',
      description:
        'Comma-separated earlier secrets keys (base64), still readable until `weft workflow rotate-secrets-key` re-encrypts',
    }),
  ),
  WORKFLOW_EXTERNAL_TASKS_AUTH: Type.Enum(['public', 'required'], {
    default: 'public',
    description:
      '`public`: the external-task endpoints need no token (the spec); `required`: a token of a Worker, who gets only tasks of its orgs',
  }),
  WORKFLOW_LONG_POLLS_PER_CLIENT: Type.Integer({
    default: 20,
    minimum: 1,
    maximum: 10_000,
    description:
      "Concurrent fetch-and-lock long polls one client may hold (a client: the token's actor, or the address when unauthenticated); more get 429",
  }),
  WORKFLOW_LONG_POLLS_MAX: Type.Integer({
    default: 200,
    minimum: 1,
    maximum: 100_000,
    description: 'Concurrent fetch-and-lock long polls of one service instance; more get 429',
  }),
  WORKFLOW_CONNECTOR_CONCURRENCY: Type.Integer({
    default: 4,
    minimum: 1,
    maximum: 64,
    description: 'HTTP connector jobs one service instance runs at the same time',
  }),
  WORKFLOW_CONNECTOR_MAX_RESPONSE_BYTES: Type.Integer({
    default: 1024 * 1024,
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    description: 'Largest response body an HTTP connector reads; a larger one fails the attempt',
  }),
  WORKFLOW_FEEL_TIMEOUT_MS: Type.Integer({
    default: 1000,
    minimum: 10,
    maximum: 600_000,
    description:
      'Wall-clock budget of one FEEL evaluation that can loop (`for`, `some`/`every`, functions, filters): a decision, condition or mapping over it fails (4xx or incident)',
  }),
  WORKFLOW_FEEL_MAX_LIST_LENGTH: Type.Integer({
    default: 100_000,
    minimum: 100,
    maximum: 100_000_000,
    description:
      'Longest list FEEL may build by iterating a range (`for i in 1..n`) or by `split`; a longer one fails the evaluation',
  }),
  WORKFLOW_FEEL_MAX_EXPRESSION_LENGTH: Type.Integer({
    default: 10_000,
    minimum: 100,
    maximum: 10_000_000,
    description: 'Longest FEEL text (an expression or unary tests) a deployed DMN file may contain',
  }),
  WORKFLOW_DMN_MAX_ELEMENTS: Type.Integer({
    default: 2000,
    minimum: 1,
    maximum: 1_000_000,
    description:
      'Most DRG elements (decisions, input data, business knowledge models, decision services) in one deployed DMN file',
  }),
  WORKFLOW_DMN_MAX_EXPRESSIONS: Type.Integer({
    default: 50_000,
    minimum: 1,
    maximum: 10_000_000,
    description: 'Most FEEL texts (`<text>` elements: expressions, rule entries) in one deployed DMN file',
  }),
  RECORDS_PORT: Type.Integer({
    default: 8081,
    minimum: 0,
    maximum: 65535,
    description: 'Records service port',
  }),
  RECORDS_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description:
        'Port of a separate listener serving `GET /metrics` without a token, for Prometheus scrapers (off when unset)',
    }),
  ),
  RECORDS_METRICS_HOST: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Address the `RECORDS_METRICS_PORT` listener binds to (default `WEFT_HOST`)',
    }),
  ),
  RECORDS_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'Records database login the service serves requests with (least privilege, subject to row-level security); embedded PostgreSQL database `records` when unset',
    }),
  ),
  RECORDS_MIGRATION_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'Records database login that owns the tables and runs migrations and DDL; RECORDS_DATABASE_URL when unset',
    }),
  ),
  RECORDS_RESOURCES_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Folder of *.yaml resources; ./resources, or (not in production) the bundled examples when that is missing',
    }),
  ),
  RECORDS_JWT_ISSUER: Type.Optional(
    Type.String({ minLength: 1, description: 'Required `iss` of records JWTs' }),
  ),
  RECORDS_JWT_AUDIENCE: Type.Optional(
    Type.String({ minLength: 1, description: 'Required `aud` of records JWTs (not checked when unset)' }),
  ),
  RECORDS_JWT_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'HS256 key of records JWTs (at least 32 characters)' }),
  ),
  RECORDS_JWT_PUBLIC_KEY: Type.Optional(
    Type.String({ minLength: 1, description: 'PEM public key (SPKI) verifying RS256 records JWTs' }),
  ),
  RECORDS_JWT_ROLES_CLAIM: Type.String({
    default: 'roles',
    minLength: 1,
    description: 'JWT claim holding the actor roles (a list or a space-separated string)',
  }),
  RECORDS_TRUSTED_PROXIES: Type.String({
    default: '',
    pattern: '^[0-9A-Fa-f:.,/\\s]*$',
    description:
      'Comma-separated addresses or CIDR ranges of proxies whose X-Forwarded-For is believed (API key allowlists)',
  }),
  RECORDS_REVOCATION_POLL_MS: Type.Integer({
    default: 1000,
    minimum: 50,
    maximum: 60_000,
    description: 'How often each instance reads the revocation store (a revocation applies within this time)',
  }),
  RECORDS_REVOCATION_GRACE_MS: Type.Integer({
    default: 5000,
    minimum: 0,
    maximum: 600_000,
    description: 'How long the last copy of the revocation set serves while the store does not answer',
  }),
  RECORDS_AUDIT_SIGNING_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Ed25519 private key (PEM, PKCS#8; `\\n` accepted for line breaks) signing audit checkpoints; unset: the audit chain is not anchored',
    }),
  ),
  RECORDS_AUDIT_ANCHOR_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Folder of the append-only signed audit checkpoints, outside the database; WEFT_DATA_DIR/audit-anchors when unset',
    }),
  ),
  RECORDS_AUDIT_ANCHOR_INTERVAL_MS: Type.Integer({
    default: 60_000,
    minimum: 1000,
    maximum: 86_400_000,
    description: 'How often the audit chain heads written since the last run are signed and appended',
  }),
  RECORDS_AUTH_AUDIT_RETENTION_DAYS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36_500,
      description:
        'Days an entry of the auth audit log is kept before housekeeping deletes it; unset: entries are kept',
    }),
  ),
  RECORDS_RATE_LIMIT_PER_MINUTE: Type.Integer({
    default: 1000,
    minimum: 1,
    description: 'Requests per minute per actor',
  }),
  RECORDS_SEARCH_RATE_LIMIT: Type.Integer({
    default: 100,
    minimum: 1,
    description: 'Search requests per minute per actor',
  }),
  RECORDS_ARCHIVE_RATE_LIMIT: Type.Integer({
    default: 50,
    minimum: 1,
    description: 'Archive queries per minute per actor',
  }),
  RECORDS_ARCHIVE_URL: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Where archive files live: a path, `file:///abs/path` or `s3://bucket/prefix`; WEFT_DATA_DIR/archive when unset',
    }),
  ),
  RECORDS_ARCHIVE_S3_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'Endpoint of an S3-compatible store (`http://127.0.0.1:9000`; path-style requests); AWS S3 of AWS_REGION when unset',
    }),
  ),
  AWS_ENDPOINT_URL_S3: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: 'The AWS standard name of the S3 endpoint; RECORDS_ARCHIVE_S3_ENDPOINT wins',
    }),
  ),
  AWS_REGION: Type.String({
    default: 'us-east-1',
    pattern: '^[a-z0-9-]+$',
    description: 'Region of the archive bucket',
  }),
  AWS_ACCESS_KEY_ID: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Access key of the archive bucket; the AWS SDK default credential chain when unset',
    }),
  ),
  AWS_SECRET_ACCESS_KEY: Type.Optional(
    Type.String({ minLength: 1, description: 'Secret key of the archive bucket (with AWS_ACCESS_KEY_ID)' }),
  ),
  AWS_SESSION_TOKEN: Type.Optional(
    Type.String({ minLength: 1, description: 'Session token of temporary archive bucket credentials' }),
  ),
  RECORDS_ARCHIVE_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    maximum: 600_000,
    description:
      'Longest wait for the archive bucket per attempt (connecting, then any silence); 3 attempts, then 503',
  }),
  RECORDS_ARCHIVE_CACHE_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Folder of the local copies of archive objects (S3); WEFT_DATA_DIR/archive-cache when unset',
    }),
  ),
  RECORDS_ARCHIVE_CACHE_MB: Type.Integer({
    default: 1024,
    minimum: 1,
    maximum: 1_048_576,
    description: 'Size bound of that download cache; least recently used copies are removed first',
  }),
});

/** The environment after defaults and type conversion. */
export type Environment = Static<typeof environmentSchema>;

/** Names of every variable weft reads. */
export const environmentVariableNames = Object.keys(environmentSchema.properties) as (keyof Environment)[];
