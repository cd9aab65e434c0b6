import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngineFixture, type EngineFixture } from '../engine/api/engine-fixture.js';

/** One request the test server received. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server on 127.0.0.1 whose answer each test sets. */
export interface TestServer {
  url: string;
  received: Received[];
  answer: (request: Received, response: http.ServerResponse) => void;
  close(): Promise<void>;
}

/** Starts the test server. */
export async function startTestServer(): Promise<TestServer> {
  const server: TestServer = {
    url: '',
    received: [],
    answer: (_request, response) => response.end(),
    close: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
  const httpServer = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      server.received.push(received);
      server.answer(received, response);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  server.url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  return server;
}

/** A process `key` with one service task `call` implemented by `connector` (the extension element). */
export function connectorProcess(key: string, connector: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:weft="https://weft.dev/schema/bpmn/1.0" id="Defs_${key}" targetNamespace="urn:test">
  <bpmn:process id="${key}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="call" name="Call the shop">
      <bpmn:extensionElements>${connector}</bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
}

/** The engine fixture plus an org secret and helpers to deploy connector processes. */
export interface ConnectorFixture extends EngineFixture {
  deployXml(xml: string): Promise<{ statusCode: number; body: string }>;
  putSecret(name: string, value: string): Promise<void>;
  /** Runs due connector jobs until `done` holds (the background executors may take some). */
  runUntil(what: string, done: () => Promise<boolean>): Promise<void>;
  history(instanceId: string): Promise<string>;
}

/** Starts the fixture with a moving test clock. */
export async function createConnectorFixture(clock: { now(): Date }): Promise<ConnectorFixture> {
  const f = await createEngineFixture(
    { WORKFLOW_JWT_TTL_SECONDS: '86400', WORKFLOW_CONNECTOR_MAX_RESPONSE_BYTES: '4096' },
    clock,
  );
  return {
    ...f,
    deployXml: async (xml) =>
      f.workflow.request({
        method: 'POST',
        url: '/api/v1/deployments',
        token: f.tokens.developer,
        body: { org_id: f.orgId, process_group_id: f.groupId, xml },
      }),
    putSecret: async (name, value) => {
      const response = await f.workflow.request({
        method: 'POST',
        url: '/api/v1/secrets',
        token: f.tokens.admin,
        headers: { 'x-org-id': f.orgId },
        body: { name, value },
      });
      assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body);
    },
    runUntil: async (what, done) => {
      const deadline = Date.now() + 10_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await f.workflow.service.runConnectorJobs();
      }
    },
    history: async (instanceId) =>
      (
        await f.workflow.request({
          method: 'GET',
          url: `/api/v1/process-instances/${instanceId}/history`,
          token: f.tokens.reader,
        })
      ).body,
  };
}
