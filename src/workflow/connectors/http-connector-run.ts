import { performance } from 'node:perf_hooks';
import type { Logger } from '../../platform/logging/logger.js';
import { redactUrl } from '../../platform/logging/redact-url.js';
import { evaluateFeel } from '../engine/runtime/feel.js';
import type { JsonValue, ScriptWait, Variables } from '../engine/runtime/index.js';
import type { ScriptSandbox } from '../scripts/sandbox.js';
import type { ResolvedSecrets } from '../secrets/secret-service.js';
import type { ConnectorMetrics } from './connector-metrics.js';
import { sendHttp, type HttpAnswer } from './http-call.js';
import {
  connectorSecretNames,
  parseHttpConnector,
  type HttpConnectorConfig,
  type OutputMapping,
} from './http-connector-element.js';
import { OutboundPolicy, OutboundRefusedError } from './outbound-guard.js';
import { Redactor } from './redactor.js';
import { renderTemplate, TemplateError } from './templates.js';

/** How a connector run ended: the wait's answer, or an incident at once (retrying cannot help). */
export type ConnectorOutcome =
  { kind: 'complete'; variables: Variables } | { kind: 'incident'; message: string };

/**
 * A failed attempt that may succeed later (network error, timeout, unexpected status, oversized
 * answer). Its message is already redacted and it carries no cause, so nothing secret rides along.
 */
export class ConnectorAttemptError extends Error {
  override readonly name = 'ConnectorAttemptError';
}

/** What one HTTP connector run needs. */
export interface HttpConnectorRunDeps {
  resolveSecrets(orgId: string, names: readonly string[]): Promise<ResolvedSecrets>;
  allowlist(orgId: string): Promise<string[] | null>;
  sandbox: ScriptSandbox;
  metrics: ConnectorMetrics;
  logger: Logger;
  maxResponseBytes: number;
}

/** Which job is run, for messages and logs. */
export interface ConnectorJobContext {
  orgId: string;
  instanceId: string;
  elementId: string;
}

const EXCERPT_CHARS = 500;
const JQ_RESULT = 'weft_connector_output';

/**
 * Runs a `<weft:httpConnector>` wait: resolves its secrets, renders the request, sends it under the
 * org's outbound policy, checks the status and maps the answer into variables. Every text that
 * leaves (logs, messages, metrics labels, mapped variables) goes through a redactor holding this
 * request's secret values.
 */
export async function runHttpConnector(
  deps: HttpConnectorRunDeps,
  job: ConnectorJobContext,
  wait: ScriptWait,
): Promise<ConnectorOutcome> {
  const config = parseHttpConnector(wait.extension);
  const label = `HTTP connector '${job.elementId}'`;
  const resolved = await deps.resolveSecrets(job.orgId, connectorSecretNames(config));
  let redactor = new Redactor(resolved.values.values());
  if (resolved.missing.length > 0) {
    const names = resolved.missing.map((name) => `'${name}'`).join(', ');
    deps.metrics.outcome('http', 'unknown', 'incident');
    return { kind: 'incident', message: `${label}: secret ${names} does not exist in the organisation` };
  }
  let request: ReturnType<typeof renderRequest>;
  try {
    request = renderRequest(config, wait.variables, resolved.values);
  } catch (error) {
    const message =
      error instanceof TemplateError || error instanceof TypeError ? error.message : String(error);
    deps.metrics.outcome('http', 'unknown', 'incident');
    return { kind: 'incident', message: redactor.text(`${label}: ${message}`) };
  }
  // A header value that carries a secret (`Bearer …`) may be echoed base64-encoded in one piece.
  redactor = redactor.including(Object.values(request.headers));
  const host = redactor.text(request.url.host);
  const shownUrl = redactUrl(redactor.text(request.url.toString()));
  const policy = new OutboundPolicy(await deps.allowlist(job.orgId));
  const started = performance.now();
  let answer: HttpAnswer;
  try {
    answer = await sendHttp({
      method: config.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      timeoutMs: config.timeoutMs,
      maxResponseBytes: deps.maxResponseBytes,
      policy,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = redactor.text(`${label}: ${config.method} ${shownUrl} failed: ${reason}`);
    if (error instanceof OutboundRefusedError) {
      deps.logger.warn({ connector: 'http', element: job.elementId, instance: job.instanceId }, message);
      deps.metrics.outcome('http', host, 'incident');
      return { kind: 'incident', message };
    }
    deps.logger.warn({ connector: 'http', element: job.elementId, instance: job.instanceId }, message);
    deps.metrics.outcome('http', host, 'failed');
    throw new ConnectorAttemptError(message);
  } finally {
    deps.metrics.observe('http', (performance.now() - started) / 1000);
  }
  const durationMs = Math.round(performance.now() - started);
  deps.logger.info(
    {
      connector: 'http',
      element: job.elementId,
      instance: job.instanceId,
      method: config.method,
      url: shownUrl,
      status: answer.status,
      duration_ms: durationMs,
    },
    'connector request answered',
  );
  if (!config.expectedStatus.some(([low, high]) => answer.status >= low && answer.status <= high)) {
    // Redacted before it is cut, so a secret that straddles the cut leaves no prefix behind.
    const body = redactor.text(answer.body);
    const excerpt = body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body;
    const message = redactor.text(
      `${label}: ${config.method} ${shownUrl} answered ${answer.status}${excerpt === '' ? '' : `: ${excerpt}`}`,
    );
    deps.logger.warn({ connector: 'http', element: job.elementId, instance: job.instanceId }, message);
    deps.metrics.outcome('http', host, 'failed');
    throw new ConnectorAttemptError(message);
  }
  const mapped = await mapResponse(deps.sandbox, config.outputs, answer);
  if (!mapped.ok) {
    deps.metrics.outcome('http', host, 'incident');
    return { kind: 'incident', message: redactor.text(`${label}: ${mapped.message}`) };
  }
  deps.metrics.outcome('http', host, 'success');
  return { kind: 'complete', variables: redactor.json(mapped.variables) as Variables };
}

function renderRequest(
  config: HttpConnectorConfig,
  variables: Variables,
  secrets: ReadonlyMap<string, string>,
) {
  const url = new URL(renderTemplate(config.url, 'url', variables, secrets));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TemplateError('url is not http(s)');
  const headers: Record<string, string> = {};
  for (const header of config.headers) {
    const value = renderTemplate(header.value, 'header', variables, secrets);
    if (/[\r\n]/.test(value)) throw new TemplateError(`header '${header.name}' would contain a line break`);
    headers[header.name.toLowerCase()] = value;
  }
  let body: string | null = null;
  if (config.body !== null) {
    body = renderTemplate(config.body.template, config.body.format, variables, secrets);
    headers['content-type'] ??=
      config.body.format === 'json' ? 'application/json' : 'text/plain; charset=utf-8';
  }
  return { url, headers, body };
}

function parsedBody(answer: HttpAnswer): JsonValue {
  if (/\bjson\b/i.test(answer.headers['content-type'] ?? '') && answer.body.trim() !== '') {
    try {
      return JSON.parse(answer.body) as JsonValue;
    } catch {
      return answer.body;
    }
  }
  return answer.body;
}

async function mapResponse(
  sandbox: ScriptSandbox,
  outputs: readonly OutputMapping[],
  answer: HttpAnswer,
): Promise<{ ok: true; variables: Variables } | { ok: false; message: string }> {
  const response: Variables = { status: answer.status, headers: answer.headers, body: parsedBody(answer) };
  const variables: Variables = {};
  for (const output of outputs) {
    if (output.language === 'feel') {
      const result = evaluateFeel(output.expression, response);
      if (!result.ok) return { ok: false, message: `output '${output.variable}': ${result.message}` };
      variables[output.variable] = result.value;
    } else {
      // A jq step must produce an object (its keys become variables): the value is wrapped in one.
      const expression = `{"${JQ_RESULT}": (${output.expression}\n)}`;
      const result = await sandbox.run([{ name: output.variable, type: 'jq', expression }], response, {});
      const step = result.steps[0];
      if (!result.ok || step === undefined) {
        return { ok: false, message: `output '${output.variable}': ${step?.error?.message ?? 'jq failed'}` };
      }
      variables[output.variable] = result.variablesAfter[JQ_RESULT] ?? null;
    }
  }
  return { ok: true, variables };
}
