import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { OrgHeader, orgIdOf } from '../identity/orgs/org-header.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { AllowlistService } from './allowlist-service.js';
import { Allowlist } from './schemas.js';

/** The connector allowlist of an organisation (OrgAdmin). */
export function registerConnectorRoutes(app: HttpServer, allowlists: AllowlistService): void {
  const tags = ['connectors'];
  const security = bearerSecurity;
  app.get(
    '/api/v1/connectors/allowlist',
    {
      schema: {
        tags,
        security,
        summary: 'Hosts HTTP connectors of the organisation may call (OrgAdmin)',
        headers: OrgHeader,
        response: { 200: Allowlist, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => allowlists.get(identityOf(request), orgIdOf(request.headers)),
  );
  app.put(
    '/api/v1/connectors/allowlist',
    {
      schema: {
        tags,
        security,
        summary: 'Replace the hosts HTTP connectors of the organisation may call (OrgAdmin)',
        description:
          'An empty list removes the allowlist. IP and CIDR entries also open link-local addresses, ' +
          'which are refused otherwise.',
        headers: OrgHeader,
        body: Allowlist,
        response: { 200: Allowlist, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => allowlists.put(identityOf(request), orgIdOf(request.headers), request.body.hosts),
  );
}
