import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { HttpServer } from './http-server.js';

/** Where `npm run build` puts the consoles (`scripts/build-console.ts`), from src/ and dist/ alike. */
const consoleRoot = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

// The console loads only its own files; bpmn-js and dmn-js set inline styles on the diagram.
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

function secure(reply: FastifyReply): void {
  void reply.header('content-security-policy', contentSecurityPolicy);
  void reply.header('x-content-type-options', 'nosniff');
  void reply.header('referrer-policy', 'same-origin');
}

/**
 * Serves a console single-page app at `/console/`: its built files (public: the app holds no data;
 * everything it shows comes from the authenticated API), and `index.html` for every other path
 * under `/console/` so that deep links (an instance, a record) load the app, which routes them.
 * Hashed assets are cached for good; `index.html` is revalidated. Without a build, `/console/`
 * answers 503 saying how to build it.
 */
export async function serveConsole(app: HttpServer, name: 'workflow' | 'records'): Promise<void> {
  const root = `${consoleRoot}${name}`;
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), public: true };
      route.schema = { ...route.schema, hide: true };
    });
    scope.get('/console', (_request, reply) => reply.redirect('/console/'));
    if (!existsSync(`${root}/index.html`)) {
      scope.get('/console/*', (_request, reply) =>
        reply
          .status(503)
          .type('text/plain; charset=utf-8')
          .send('The console is not built: run `npm run build` in the weft folder.\n'),
      );
      return;
    }
    await scope.register(fastifyStatic, {
      root,
      prefix: '/console/',
      wildcard: false,
      index: false,
      // The build writes .br and .gz beside each asset; a browser that accepts them gets those.
      preCompressed: true,
      setHeaders: (reply, path) => {
        void reply.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    scope.addHook('onSend', (_request, reply, payload, done) => {
      secure(reply);
      done(null, payload);
    });
    const sendApp = (reply: FastifyReply) =>
      reply.header('cache-control', 'no-cache').sendFile('index.html', root);
    scope.get('/console/', (_request, reply) => sendApp(reply));
    scope.get('/console/*', (_request, reply) => sendApp(reply));
  });
}
