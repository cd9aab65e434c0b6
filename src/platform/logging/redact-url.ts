/** What replaces a credential in a logged URL. */
export const URL_CENSOR = '[redacted]';

/** Words that make a query parameter a credential when they are one of the words of its name. */
const credentialWords = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'signature',
  'sig',
  'credential',
  'credentials',
  'auth',
  'authorization',
  'session',
  'sessionid',
  'sid',
  'jwt',
  'code',
  'otp',
  'pin',
  'hmac',
  'private',
]);

/**
 * True when a query parameter name looks like it carries a credential: one of its words (split at
 * punctuation and camelCase) is a credential word, or it ends in one of `key`, `token`, `secret`,
 * `password` (`apikey`, `accesstoken`, `clientsecret`, `X-Amz-Signature`, `api_key`, `code`…).
 */
export function isCredentialParameter(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.some((word) => credentialWords.has(word))) return true;
  return /(key|token|secret|password)$/.test(words.join(''));
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** A query string (without `?`) whose credential parameters have their values replaced. */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      return equals !== -1 && isCredentialParameter(decodeName(name)) ? `${name}=${URL_CENSOR}` : pair;
    })
    .join('&');
}

/**
 * A URL fit for a log line: the values of credential query parameters (`?api_key=…`, `token`,
 * `password`, `signature`, `code`…) and of the fragment are replaced, and user info
 * (`https://user:pass@host`) is removed. Works on a request target (`/path?query`) and on an
 * absolute URL; the rest is kept as it was written.
 */
export function redactUrl(url: string): string {
  let rest = url;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    fragment = `#${redactQuery(rest.slice(hash + 1))}`;
    rest = rest.slice(0, hash);
  }
  let query = '';
  const question = rest.indexOf('?');
  if (question !== -1) {
    query = `?${redactQuery(rest.slice(question + 1))}`;
    rest = rest.slice(0, question);
  }
  // scheme://userinfo@host… → scheme://[redacted]@host…
  const authority = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/]*@)/.exec(rest);
  if (authority) rest = `${authority[1]}${URL_CENSOR}@${rest.slice(authority[0].length)}`;
  return rest + query + fragment;
}
