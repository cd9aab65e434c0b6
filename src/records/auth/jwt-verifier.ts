import { createPublicKey, type KeyObject } from 'node:crypto';
import { jwtVerify, type JWTPayload } from 'jose';
import type { RecordsConfig } from '../../platform/config/index.js';
import type { Identity } from '../types.js';

const cacheSize = 10_000;

/**
 * Verifies records JWTs from the configured issuer: HS256 with `RECORDS_JWT_SECRET` and/or RS256
 * with `RECORDS_JWT_PUBLIC_KEY`. `sub` is the actor; roles come from the configured claim; the
 * `attributes` claim (an object) becomes the identity's attributes. A verified token is remembered
 * (bounded) with its expiry, which is still checked on every use.
 */
export class JwtVerifier {
  private readonly secret: Uint8Array | undefined;
  private readonly publicKey: KeyObject | undefined;
  private readonly verified = new Map<string, { identity: Identity; expiresAt: number; issuedAt: number }>();

  constructor(private readonly config: RecordsConfig['jwt']) {
    this.secret = config.secret ? new TextEncoder().encode(config.secret) : undefined;
    this.publicKey = config.publicKey ? createPublicKey(config.publicKey) : undefined;
  }

  /**
   * The identity of a token verified before (null once it has expired), or undefined when the
   * token was not seen yet.
   */
  remembered(token: string, now: Date): Identity | null | undefined {
    const remembered = this.verified.get(token);
    if (remembered === undefined) return undefined;
    return now.getTime() < remembered.expiresAt ? remembered.identity : null;
  }

  /** When a remembered token was issued (`iat`, ms; 0 without one), or undefined when not remembered. */
  issuedAt(token: string): number | undefined {
    return this.verified.get(token)?.issuedAt;
  }

  /** The identity of a valid token, or null. */
  async verify(token: string, now: Date): Promise<Identity | null> {
    const remembered = this.remembered(token, now);
    if (remembered !== undefined) return remembered;
    if (token.length > 8192) return null;
    const payload = await this.check(token, now);
    if (!payload || typeof payload.sub !== 'string' || payload.sub === '' || payload.exp === undefined)
      return null;
    const identity: Identity = {
      actor_id: payload.sub,
      roles: rolesOf(payload[this.config.rolesClaim]),
      attributes:
        typeof payload.attributes === 'object' &&
        payload.attributes !== null &&
        !Array.isArray(payload.attributes)
          ? (payload.attributes as Record<string, unknown>)
          : {},
    };
    if (this.verified.size >= cacheSize) {
      const oldest = this.verified.keys().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.set(token, {
      identity,
      expiresAt: payload.exp * 1000,
      issuedAt: (payload.iat ?? 0) * 1000,
    });
    return identity;
  }

  private async check(token: string, now: Date): Promise<JWTPayload | null> {
    const options = {
      currentDate: now,
      requiredClaims: ['sub', 'exp'],
      ...(this.config.issuer ? { issuer: this.config.issuer } : {}),
      ...(this.config.audience ? { audience: this.config.audience } : {}),
    };
    for (const [key, algorithm] of [
      [this.secret, 'HS256'],
      [this.publicKey, 'RS256'],
    ] as const) {
      if (!key) continue;
      try {
        return (await jwtVerify(token, key, { ...options, algorithms: [algorithm] })).payload;
      } catch {
        // Try the next key.
      }
    }
    return null;
  }
}

function rolesOf(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((role): role is string => typeof role === 'string');
  if (typeof claim === 'string') return claim.split(/[\s,]+/).filter(Boolean);
  return [];
}
