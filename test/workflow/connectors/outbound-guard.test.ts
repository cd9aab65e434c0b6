import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  allowlistProblems,
  OutboundPolicy,
  OutboundRefusedError,
} from '../../../src/workflow/connectors/outbound-guard.js';

const lookup = (policy: OutboundPolicy, host: string) =>
  new Promise<string>((resolve, reject) => {
    policy.lookupFor(host)(host, {}, (error, address) =>
      error ? reject(error) : resolve(typeof address === 'string' ? address : JSON.stringify(address)),
    );
  });

describe('outbound policy', () => {
  test('link-local and metadata addresses are refused, in every spelling', () => {
    const open = new OutboundPolicy(null);
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      '::ffff:169.254.169.254',
      'fe80::1',
      'febf::1',
      'fd00:ec2::254',
    ]) {
      assert.match(open.refusal(address, true) ?? '', /link-local or a metadata address/, address);
    }
    for (const address of ['127.0.0.1', '10.0.0.1', '8.8.8.8', '::1', 'fec0::1']) {
      assert.equal(open.refusal(address, true), null, address);
    }
  });

  test('an address or CIDR entry of the allowlist opens a link-local address', () => {
    const policy = new OutboundPolicy(['169.254.169.254']);
    assert.equal(policy.refusal('169.254.169.254', false), null);
    assert.match(policy.refusal('169.254.0.9', false) ?? '', /link-local/);
  });

  test('with an allowlist, names match exactly or by *.suffix', () => {
    const policy = new OutboundPolicy(['api.example.com', '*.example.org']);
    assert.ok(policy.hostAllowed('API.example.com'));
    assert.ok(policy.hostAllowed('a.b.example.org'));
    assert.ok(!policy.hostAllowed('example.org.evil.com'));
    assert.ok(!policy.hostAllowed('other.example.com'));
    assert.match(
      policy.refusal('93.184.216.34', false) ?? '',
      /not on the organisation's connector allowlist/,
    );
  });

  test('the check is made on the resolved address, not only the name', async () => {
    await assert.rejects(lookup(new OutboundPolicy(['example.com']), 'localhost'), OutboundRefusedError);
    // localhost is not listed by name, but the range of its resolved address is.
    assert.match(await lookup(new OutboundPolicy(['127.0.0.0/8', '::1']), 'localhost'), /^(127\.|::1)/);
  });

  test('allowlist entries are checked', () => {
    assert.deepEqual(allowlistProblems(['a.example.com', '*.x.org', '10.0.0.0/8', '::1', 'fe80::/10']), []);
    assert.equal(allowlistProblems(['http://x', '10.0.0.0/40', 'a b', '*']).length, 4);
  });
});
