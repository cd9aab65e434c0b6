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
