export {
  loadConfig,
  ConfigError,
  type Config,
  type WorkflowConfig,
  type ExternalTasksAuth,
  type RecordsConfig,
  type HttpTimeouts,
  type LongPollLimits,
} from './load-config.js';
export { environmentSchema, environmentVariableNames } from './environment.js';
export type {
  ArchiveStoreConfig,
  ArchiveStoreCredentials,
  FileArchiveStoreConfig,
  S3ArchiveStoreConfig,
} from './archive-store-config.js';
