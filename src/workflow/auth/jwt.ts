import { jwtVerify, SignJWT } from 'jose';

/** The deprecated `org` claim: always the nil UUID. */
export const nilUuid = '00000000-0000-0000-0000-000000000000';
const issuer = 'workflow';
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Issues and verifies the login JWTs of the spec: HS256, `iss` = workflow, `sub` = user id. */
export class JwtCodec {
  private readonly key: Uint8Array;

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
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer,
        currentDate: now,
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      return typeof payload.sub === 'string' && uuidPattern.test(payload.sub) ? payload.sub : null;
    } catch {
      return null;
    }
  }
}
