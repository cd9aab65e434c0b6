import type { Pool } from '../../../platform/database/pool.js';
import { identityOfApiKeyRow } from '../api-keys.js';
import type { RequiredScopes } from '../scopes/required-scopes.js';
import { AddressAllowlist } from './address-allowlist.js';
import { absent, invalid, type Credentials, type Strategy, type StrategyVerdict } from './strategy.js';
import type { AuthStrategyDefinition } from './strategy-definition.js';

/**
 * `type: api_key`: a key from `weft records api-key create` in the header `apiKey.headerName`. Keys
 * are looked up on every request (SHA-256), so expiry and revocation apply at once. The client address
 * (after the trusted-proxy rules) must be inside `apiKey.ipAllowlist` when one is given, and inside
 * the key's own `--allow` ranges when it has any. The key's `--scope`s are the scopes it grants.
 */
export class ApiKeyStrategy implements Strategy {
  readonly type = 'api_key';
  readonly name: string;
  private readonly header: string;
  private readonly allowlist: AddressAllowlist;
  private readonly failOpen: boolean;
  private readonly requiredScopes: RequiredScopes | undefined;

  constructor(
    definition: AuthStrategyDefinition,
    private readonly pool: Pool,
  ) {
    const apiKey = definition.spec.apiKey;
    if (!apiKey) throw new Error(`AuthStrategy ${definition.name} has no apiKey section`);
    this.name = definition.name;
    this.header = apiKey.headerName.toLowerCase();
    this.allowlist = new AddressAllowlist(apiKey.ipAllowlist ?? []);
    this.failOpen = definition.spec.revocation?.failOpen ?? false;
    this.requiredScopes = definition.spec.requiredScopes;
  }

  authenticateAtOnce(credentials: Credentials): StrategyVerdict | undefined {
    const key = credentials.headers[this.header];
    if (key === undefined) return absent;
    if (typeof key !== 'string') return invalid;
    if (!this.allowlist.empty && !this.allowlist.includes(credentials.address)) return invalid;
    return undefined;
  }

  async authenticate(credentials: Credentials): Promise<StrategyVerdict> {
    const atOnce = this.authenticateAtOnce(credentials);
    if (atOnce !== undefined) return atOnce;
    const found = await identityOfApiKeyRow(
      this.pool,
      String(credentials.headers[this.header]),
      credentials.address,
    );
    if (found === null) return invalid;
    return {
      kind: 'authenticated',
      identity: found.identity,
      strategy: this.name,
      issuedAt: found.createdAt.getTime(),
      failMode: 'NONE',
      failOpen: this.failOpen,
      scopes: found.scopes,
      requiredScopes: this.requiredScopes,
    };
  }
}
