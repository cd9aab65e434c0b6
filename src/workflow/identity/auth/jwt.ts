import { jwtVerify, SignJWT } from 'jose';

/** The deprecated `org` claim: always the nil UUID. */
export const nilUuid = '00000000-0000-0000-0000-000000000000';
const issuer = 'workflow';
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const verifiedCacheSize = 10_000;

/**
 * Issues and verifies the login JWTs of the spec: HS256, `iss` = workflow, `sub` = user id.
 * A token's signature is checked once per process: verified tokens are remembered (bounded, by
 * insertion order) with their expiry, which is still checked on every use.
 */
export class JwtCodec {
  private readonly key: Uint8Array;
  private readonly verified = new Map<string, { userId: string; expiresAt: number }>();

  constructor(
    signingKey: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(signingKey);
  }

  /** Signs a token for `userId`, issued at `now`. */
  async issue(userId: string, now: Date): Promise<{ token: string; expiresIn: number }> {
    const iat = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({ org: nilUuid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(issuer)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** Returns the user id of a valid token, or null for anything wrong, expired or forged. */
  async verify(token: string, now: Date): Promise<string | null> {
    const remembered = this.verified.get(token);
    if (remembered) return now.getTime() < remembered.expiresAt ? remembered.userId : null;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer,
        currentDate: now,
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      if (typeof payload.sub !== 'string' || !uuidPattern.test(payload.sub) || payload.exp === undefined)
        return null;
      this.remember(token, payload.sub, payload.exp * 1000);
      return payload.sub;
    } catch {
      return null;
    }
  }

  private remember(token: string, userId: string, expiresAt: number): void {
    if (this.verified.size >= verifiedCacheSize) {
      const oldest = this.verified.keys().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.set(token, { userId, expiresAt });
  }
}
