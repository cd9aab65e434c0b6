import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isCredentialParameter, redactUrl } from '../../src/platform/logging/redact-url.js';

describe('URLs for log lines lose their credentials', () => {
  const cases: [string, string][] = [
    ['/api/v1/things?api_key=k1&page=2', '/api/v1/things?api_key=[redacted]&page=2'],
    [
      '/x?token=a&access_token=b&password=c&secret=d&signature=e&code=f',
      '/x?token=[redacted]&access_token=[redacted]&password=[redacted]&secret=[redacted]&signature=[redacted]&code=[redacted]',
    ],
    [
      '/x?apiKey=a&X-Amz-Signature=b&client_secret=c&key=d&sig=e',
      '/x?apiKey=[redacted]&X-Amz-Signature=[redacted]&client_secret=[redacted]&key=[redacted]&sig=[redacted]',
    ],
    ['/x?api%5Fkey=a&q=hello&author=me', '/x?api%5Fkey=[redacted]&q=hello&author=me'],
    ['/x?flag&limit=5', '/x?flag&limit=5'],
    ['https://user:pw@example.com/path?q=1', 'https://[redacted]@example.com/path?q=1'],
    [
      'https://example.com/cb#access_token=t&state=s',
      'https://example.com/cb#access_token=[redacted]&state=s',
    ],
    ['/plain/path', '/plain/path'],
  ];
  for (const [url, expected] of cases) test(url, () => assert.equal(redactUrl(url), expected));

  test('parameter names', () => {
    for (const name of ['api_key', 'API-KEY', 'accessToken', 'refresh_token', 'passwd', 'sessionId', 'otp']) {
      assert.ok(isCredentialParameter(name), name);
    }
    for (const name of ['page', 'limit', 'author', 'sort', 'q', 'passenger', 'monkeys']) {
      assert.ok(!isCredentialParameter(name), name);
    }
  });
});
