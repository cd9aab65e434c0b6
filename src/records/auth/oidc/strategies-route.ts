import Type from 'typebox';
import { publicRoute, type HttpServer } from '../../../platform/http/index.js';
import type { OidcStrategy } from './oidc-strategy.js';

const LoginStrategies = Type.Object({
  oidc: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The `strategy` parameter of `/api/auth/login`' }),
      displayName: Type.Optional(Type.String()),
    }),
  ),
});

/**
 * `GET /api/auth/strategies` (public): the OIDC strategies a browser can log in with, by name and
 * display name only (nothing of their provider, client or secret), so a login page can offer a
 * button per strategy before anyone is authenticated.
 */
export function registerLoginStrategiesRoute(
  app: HttpServer,
  strategies: () => ReadonlyMap<string, OidcStrategy>,
): void {
  app.get(
    '/api/auth/strategies',
    {
      ...publicRoute,
      schema: {
        tags: ['auth'],
        summary: 'The OIDC strategies a browser can log in with',
        response: { 200: LoginStrategies },
      },
    },
    (_request, reply) => {
      const oidc = [...strategies().values()]
        .map((strategy) =>
          strategy.displayName === undefined
            ? { name: strategy.name }
            : { name: strategy.name, displayName: strategy.displayName },
        )
        .sort((a, b) => a.name.localeCompare(b.name));
      void reply.header('cache-control', 'no-store');
      return { oidc };
    },
  );
}
