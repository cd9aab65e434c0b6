import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { captureLogs, type CapturedLogs } from '../helpers/log-capture.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';
import { startRecordsApp, type RecordsTestApp } from '../records/support/records-app.js';

const key = 'query-key-Zq81x';
const token = 'query-token-Pw77y';
const query = `?api_key=${key}&access_token=${token}&page=2`;

/** The `req.url` of every request log line. */
function loggedUrls(logs: CapturedLogs): string[] {
  return logs.lines
    .map((line) => JSON.parse(line) as { req?: { url?: string } })
    .flatMap((entry) => (typeof entry.req?.url === 'string' ? [entry.req.url] : []));
}

describe('request logs of both services keep no credential from the query string', () => {
  let workflow: TestWorkflow;
  let records: RecordsTestApp;
  const recordsLogs = captureLogs('info');
  before(async () => {
    workflow = await startTestWorkflow();
    records = await startRecordsApp({}, { logger: recordsLogs.logger, seedExamples: false });
  });
  after(async () => {
    await workflow.close();
    await records.close();
  });

  test('workflow', async () => {
    assert.equal((await workflow.request({ method: 'GET', url: `/health${query}` })).statusCode, 200);
    await workflow.request({ method: 'GET', url: `/api/v1/nothing-here${query}` });
    const urls = loggedUrls(workflow.logs);
    assert.ok(urls.includes('/health?api_key=[redacted]&access_token=[redacted]&page=2'), urls.join('\n'));
    const text = workflow.logs.text();
    assert.ok(!text.includes(key) && !text.includes(token), text);
  });

  test('records', async () => {
    await records.service.app.inject({ method: 'GET', url: `/api/healthz${query}` });
    await records.call('GET', `/api/nothing-here${query}`);
    const urls = loggedUrls(recordsLogs);
    assert.ok(
      urls.includes('/api/healthz?api_key=[redacted]&access_token=[redacted]&page=2'),
      urls.join('\n'),
    );
    const text = recordsLogs.text();
    assert.ok(!text.includes(key) && !text.includes(token), text);
  });
});
