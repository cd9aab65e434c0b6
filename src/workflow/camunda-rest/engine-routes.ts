import type { HttpServer } from '../../platform/http/http-server.js';

/** The Camunda 7 version `/engine-rest/version` answers: the last Community Edition minor weft follows. */
export const camundaVersion = '7.23.0';

/**
 * GET /engine-rest/engine and /engine-rest/version, which Camunda Modeler and other tools call to
 * check a connection. weft has one engine, `default`.
 */
export function registerEngineRoutes(scope: HttpServer): void {
  scope.get('/engine', () => [{ name: 'default' }]);
  scope.get('/version', () => ({ version: camundaVersion }));
}
