import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import type { Logger } from '../../../platform/logging/logger.js';
import { listAuthStrategyDocuments } from '../../schemas/resource-repository.js';
import type { LookupTables } from '../claims/lookup-tables.js';
import type { SecretEnvironment } from '../secret-reference.js';
import { OidcStrategy } from '../oidc/oidc-strategy.js';
import { ApiKeyStrategy } from './api-key-strategy.js';
import { CompositeStrategy } from './composite-strategy.js';
import type { JwksCache } from './jwks-cache.js';
import { JwtStrategy } from './jwt-strategy.js';
import type { Strategy } from './strategy.js';
import { validateAuthStrategy, type AuthStrategyDefinition } from './strategy-definition.js';

/** What strategies need to run. */
export interface StrategyDependencies {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  lookups: LookupTables;
  /** The key set cache of a URL (kept across reloads, so a reload does not drop cached keys). */
  keySets: (url: string) => JwksCache;
  /** What `{env: NAME}` secret references resolve against. */
  secrets: SecretEnvironment;
}

/** The declared strategies, ready: the order requests try them in, and the OIDC ones by name. */
export interface StrategySet {
  /** Composites by name, then every other strategy by name; the first that authenticates wins. */
  entry: Strategy[];
  oidc: Map<string, OidcStrategy>;
}

/** Reads and validates every stored `kind: AuthStrategy`. */
export async function loadStrategyDefinitions(pool: Pool, logger: Logger): Promise<AuthStrategyDefinition[]> {
  const rows = await listAuthStrategyDocuments(pool);
  const definitions: AuthStrategyDefinition[] = [];
  for (const row of rows) {
    const result = validateAuthStrategy(row.name, row.document.spec);
    if (result.ok) definitions.push(result.definition);
    else
      logger.error(
        { strategy: row.name, problems: result.problems },
        'a stored AuthStrategy is invalid and is not used',
      );
  }
  return definitions;
}

/**
 * Builds the strategies. A composite's members are other declared non-composite strategies
 * (an unknown or composite member is left out and logged); a strategy that cannot be built
 * (e.g. a client secret reference that does not resolve) is left out and logged, naming the
 * variable or file, never a value.
 */
export function buildStrategies(
  definitions: AuthStrategyDefinition[],
  deps: StrategyDependencies,
): StrategySet {
  const context = { lookups: deps.lookups, clock: deps.clock };
  const single = new Map<string, Strategy>();
  const oidc = new Map<string, OidcStrategy>();
  for (const definition of definitions) {
    try {
      switch (definition.spec.type) {
        case 'jwt':
          single.set(definition.name, new JwtStrategy(definition, context, deps.keySets));
          break;
        case 'api_key':
          single.set(definition.name, new ApiKeyStrategy(definition, deps.pool));
          break;
        case 'oidc': {
          const strategy = new OidcStrategy(definition, deps.pool, { ...context, secrets: deps.secrets });
          if (typeof definition.spec.oidc?.clientSecret === 'string')
            deps.logger.warn(
              { strategy: definition.name },
              'spec.oidc.clientSecret is written in the document: use {env: NAME} or {file: /path}',
            );
          single.set(definition.name, strategy);
          oidc.set(definition.name, strategy);
          break;
        }
        case 'composite':
          break;
      }
    } catch (error) {
      deps.logger.error(
        { strategy: definition.name, err: (error as Error).message },
        'an AuthStrategy cannot be used',
      );
    }
  }
  const composites: Strategy[] = [];
  for (const definition of definitions) {
    if (definition.spec.type !== 'composite') continue;
    const members = (definition.spec.strategies ?? [])
      .map((member, index) => ({ ...member, index }))
      .sort((a, b) => (a.weight ?? 0) - (b.weight ?? 0) || a.index - b.index)
      .flatMap((member) => {
        const strategy = single.get(member.name);
        if (!strategy)
          deps.logger.error(
            { strategy: definition.name, member: member.name },
            'a composite member is not a declared strategy',
          );
        return strategy ? [strategy] : [];
      });
    composites.push(new CompositeStrategy(definition.name, members));
  }
  return { entry: [...composites, ...single.values()], oidc };
}
