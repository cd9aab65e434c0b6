import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A running scrape listener. */
export interface ScrapeListener {
  /** `http://host:port`; the exposition is at `${url}/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * A listener of its own that serves `GET /metrics` (the Prometheus exposition of `registry`) without
 * credentials and nothing else (404), for scrapers on a network the main port is not exposed to, the
 * way Prometheus exporters are usually deployed. Bind it to an address only scrapers reach.
 */
export async function listenForScrapes(
  registry: Registry,
  host: string,
  port: number,
): Promise<ScrapeListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
