import { parseCookie, stringifySetCookie } from 'cookie';
import type { IncomingHttpHeaders } from 'node:http';

/** The browser session cookie set by `/api/auth/callback`. */
export const sessionCookieName = 'weft_session';
/** The cookie binding an authorization request to the browser that started it. */
export const loginCookieName = 'weft_login';
const maxCookieHeader = 8192;

/** The value of cookie `name` in the request, if any. */
export function cookieValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const header = headers.cookie;
  if (typeof header !== 'string' || header.length > maxCookieHeader) return undefined;
  const value = parseCookie(header)[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Lax, `Secure` when asked; maxAge 0 clears it. */
export function setCookie(
  name: string,
  value: string,
  options: { maxAgeSeconds: number; secure: boolean; path: string },
): string {
  return stringifySetCookie({
    name,
    value,
    httpOnly: true,
    sameSite: 'lax',
    secure: options.secure,
    path: options.path,
    maxAge: options.maxAgeSeconds,
  });
}
