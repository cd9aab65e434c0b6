export { createHttpServer, type HttpServerOptions } from './create-server.js';
export type { ErrorCatalogue } from './error-catalogue.js';
export type { HttpServer } from './http-server.js';
export { ServiceError, isServiceError } from './service-error.js';
export { publicRoute } from './route-config.js';
export { serveConsole } from './console-static.js';
