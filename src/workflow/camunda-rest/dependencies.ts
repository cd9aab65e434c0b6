import type { Clock } from '../../platform/clock.js';
import type { LongPollLimits } from '../../platform/config/index.js';
import type { Pool } from '../../platform/database/pool.js';
import type { DecisionService } from '../decisions/decision-service.js';
import type { Engine } from '../engine/engine-service.js';
import type { Authenticator } from '../identity/auth/authenticator.js';
import type { IdentityCache } from '../identity/auth/identity-cache.js';
import type { LoginService } from '../identity/auth/login-service.js';

/** What the Camunda 7 API needs from the workflow service. */
export interface CamundaRestDependencies {
  pool: Pool;
  clock: Clock;
  engine: Engine;
  authenticator: Authenticator;
  logins: LoginService;
  identities: IdentityCache;
  longPolls: LongPollLimits;
  decisions: DecisionService;
  /** Largest deployment (its files together), weft's body limit. */
  bodyLimitBytes: number;
}
