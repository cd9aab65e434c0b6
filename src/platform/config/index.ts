export {
  loadConfig,
  ConfigError,
  type Config,
  type WorkflowConfig,
  type ExternalTasksAuth,
  type RecordsConfig,
} from './load-config.js';
export { environmentSchema, environmentVariableNames } from './environment.js';
