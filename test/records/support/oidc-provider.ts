import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

/** A real OpenID Provider on 127.0.0.1 that logs in `accountId` without a form. */
export interface TestProvider {
  issuer: string;
  close(): Promise<void>;
}

/**
 * Starts oidc-provider with one confidential client (`weft`, PKCE required) redirecting to
 * `redirectUri`. Its interactions are answered programmatically: login as `accountId`, then consent
 * to the requested scopes. Claims: `sub`, `email` and `groups`, all in the ID token.
 */
export async function startTestProvider(redirectUri: string, accountId: string): Promise<TestProvider> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'weft',
        client_secret: 'weft-test-client-secret',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email'], profile: ['groups'] },
    findAccount: (_context, id) => ({
      accountId: id,
      claims: () => ({ sub: id, email: 'Olivia@Example.TEST', groups: ['ROLE_buyer', 'ROLE_viewer'] }),
    }),
    interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['oidc-test-cookie-key'] },
    features: { devInteractions: { enabled: false } },
  });
  const handler = provider.callback();
  const server: Server = createServer((request, response) => {
    if (!request.url?.startsWith('/interaction/')) return void handler(request, response);
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(
          request,
          response,
          { login: { accountId } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const grant = new provider.Grant({ accountId, clientId: 'weft' });
      const scope = typeof details.params.scope === 'string' ? details.params.scope : 'openid';
      grant.addOIDCScope(scope);
      const grantId = await grant.save();
      await provider.interactionFinished(
        request,
        response,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
