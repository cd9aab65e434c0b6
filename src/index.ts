/**
 * weft as a library: run the services from your own process. Workers import `weft/worker`.
 */
export { runServices, migrateServices, type RunningServices, type ServiceName } from './runtime.js';
export { loadConfig, type Config } from './platform/config/index.js';
export { createLogger } from './platform/logging/logger.js';
