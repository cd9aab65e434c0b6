import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import type { Clock } from '../../../src/platform/clock.js';

/** A signing key with its public JWK (`kid` set). */
export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** An RS256 key pair named `kid`. */
export async function testKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** A real JWKS endpoint on 127.0.0.1 whose keys can change and which can go down. */
export interface JwksServer {
  url: string;
  keys: JWK[];
  /** While true, connections are dropped (the endpoint is down). */
  down: boolean;
  fetches: number;
  close(): Promise<void>;
}

/** Starts a JWKS server serving `keys`. */
export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  const state = { keys, down: false, fetches: 0 } as JwksServer;
  const server: Server = createServer((request, response) => {
    if (state.down) {
      request.socket.destroy();
      return;
    }
    state.fetches += 1;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  state.url = `http://127.0.0.1:${port}/jwks.json`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** Signs `claims` with `key`; `exp` defaults to one hour after `now`, `iat` to `now`. */
export function signToken(key: TestKey, claims: JWTPayload, now: Date): Promise<string> {
  const seconds = Math.floor(now.getTime() / 1000);
  return new SignJWT({ iat: seconds, exp: seconds + 3600, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .sign(key.privateKey);
}

/** A clock that runs with real time plus an offset the test moves. */
export class MovableClock implements Clock {
  offset = 0;
  now(): Date {
    return new Date(Date.now() + this.offset);
  }
  advance(milliseconds: number): void {
    this.offset += milliseconds;
  }
}

/** Writes YAML resources into the app's folder (file name → text). */
export async function writeResources(directory: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(directory, name), text);
}
