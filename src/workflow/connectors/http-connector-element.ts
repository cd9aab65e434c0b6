import type { ExtensionSpec, RawXmlElement } from '../engine/model/types.js';
import { parseTemplate, secretNamesIn, templateProblems, type TemplatePart } from './templates.js';

/**
 * `<weft:httpConnector>` on a `bpmn:serviceTask` (or send task): an HTTP request sent by a job.
 *
 * ```xml
 * <weft:httpConnector method="POST" url="https://api.example.com/orders/{{= orderId }}"
 *     timeoutMs="10000" expectedStatus="200-299" retries="3" retryBackoffMs="5000">
 *   <weft:header name="Authorization">Bearer {{secret:shop-token}}</weft:header>
 *   <weft:body format="json">{"id": {{= orderId }}}</weft:body>
 *   <weft:output variable="remoteId" language="feel">body.id</weft:output>
 * </weft:httpConnector>
 * ```
 * Described in docs/workflow/http-connector.md.
 */
export const httpConnectorElementName = 'httpConnector';

/** A response mapping: a variable set from an expression over `{status, headers, body}`. */
export interface OutputMapping {
  variable: string;
  language: 'feel' | 'jq';
  expression: string;
}

/** A parsed `<weft:httpConnector>`. */
export interface HttpConnectorConfig {
  method: string;
  url: TemplatePart[];
  headers: { name: string; value: TemplatePart[] }[];
  body: { format: 'json' | 'text'; template: TemplatePart[] } | null;
  timeoutMs: number;
  /** Accepted status codes as inclusive ranges. */
  expectedStatus: [number, number][];
  outputs: OutputMapping[];
}

const methods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const attributeNames = new Set([
  'method',
  'url',
  'timeoutMs',
  'expectedStatus',
  'retries',
  'retryBackoffMs',
  'maxRetryBackoffMs',
]);
const childNames = new Set(['header', 'body', 'output']);
/** Default and largest request timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 300_000;
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const variableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function textOf(element: RawXmlElement): string {
  return (element.text ?? '').trim();
}

function parseStatusRanges(text: string): [number, number][] | null {
  const ranges: [number, number][] = [];
  for (const piece of text.split(',')) {
    const match = /^\s*([1-5]\d\d)\s*(?:-\s*([1-5]\d\d))?\s*$/.exec(piece);
    if (!match?.[1]) return null;
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    if (high < low) return null;
    ranges.push([low, high]);
  }
  return ranges;
}

function integerIn(text: string | undefined, min: number, max: number): boolean {
  return text !== undefined && /^\s*\d{1,9}\s*$/.test(text) && Number(text) >= min && Number(text) <= max;
}

/** Every problem of a `<weft:httpConnector>` element, as messages; empty when it can be deployed. */
export function httpConnectorProblems(raw: RawXmlElement): string[] {
  const problems: string[] = [];
  const attributes = raw.attributes;
  for (const name of Object.keys(attributes)) {
    if (!attributeNames.has(name)) problems.push(`unknown attribute '${name}'`);
  }
  const method = (attributes.method ?? 'GET').toUpperCase();
  if (!methods.has(method))
    problems.push(`method '${attributes.method}' is not one of ${[...methods].join(', ')}`);
  const url = attributes.url ?? '';
  if (url.trim() === '') problems.push('has no url');
  else {
    for (const problem of templateProblems(url)) problems.push(`url ${problem}`);
    const literal = parseTemplate(url)[0];
    if (literal?.kind !== 'text' || !/^https?:\/\/[^/]/i.test(literal.text)) {
      problems.push('url must start with a literal http:// or https:// and host');
    }
  }
  if (attributes.timeoutMs !== undefined && !integerIn(attributes.timeoutMs, 1, MAX_TIMEOUT_MS)) {
    problems.push(`timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  if (attributes.expectedStatus !== undefined && parseStatusRanges(attributes.expectedStatus) === null) {
    problems.push("expectedStatus must list codes or ranges, e.g. '200-299' or '200,201,404'");
  }
  if (attributes.retries !== undefined && !integerIn(attributes.retries, 1, 100)) {
    problems.push('retries must be a whole number from 1 to 100 (attempts in all)');
  }
  for (const name of ['retryBackoffMs', 'maxRetryBackoffMs']) {
    if (attributes[name] !== undefined && !integerIn(attributes[name], 0, 86_400_000)) {
      problems.push(`${name} must be a whole number of milliseconds up to one day`);
    }
  }
  if (raw.text !== null) problems.push('text must be inside <weft:header>, <weft:body> or <weft:output>');
  let bodies = 0;
  const variables = new Set<string>();
  for (const child of raw.children) {
    if (!childNames.has(child.name)) {
      problems.push(`unexpected <weft:${child.name}>; use <weft:header>, <weft:body> or <weft:output>`);
      continue;
    }
    if (child.children.length > 0) problems.push(`<weft:${child.name}> must contain only text`);
    if (child.name === 'header') {
      const name = child.attributes.name ?? '';
      if (!headerName.test(name)) problems.push(`header name '${name}' is not a valid HTTP header name`);
      for (const problem of templateProblems(textOf(child))) problems.push(`header '${name}' ${problem}`);
    } else if (child.name === 'body') {
      bodies++;
      const format = child.attributes.format ?? 'json';
      if (format !== 'json' && format !== 'text')
        problems.push(`body format '${format}' is not json or text`);
      for (const problem of templateProblems(textOf(child))) problems.push(`body ${problem}`);
    } else {
      const variable = child.attributes.variable ?? '';
      const language = child.attributes.language ?? 'feel';
      if (!variableName.test(variable)) problems.push(`output variable '${variable}' is not a variable name`);
      else if (variables.has(variable)) problems.push(`output variable '${variable}' is mapped twice`);
      variables.add(variable);
      if (language !== 'feel' && language !== 'jq') {
        problems.push(`output '${variable}' has language '${language}'; use feel or jq`);
      }
      if (textOf(child) === '') problems.push(`output '${variable}' has no expression`);
    }
  }
  if (bodies > 1) problems.push('has more than one <weft:body>');
  return problems;
}

/** Parses a `<weft:httpConnector>` that passed {@link httpConnectorProblems}. */
export function parseHttpConnector(raw: RawXmlElement): HttpConnectorConfig {
  const attributes = raw.attributes;
  const body = raw.children.find((child) => child.name === 'body');
  return {
    method: (attributes.method ?? 'GET').toUpperCase(),
    url: parseTemplate((attributes.url ?? '').trim()),
    headers: raw.children
      .filter((child) => child.name === 'header')
      .map((child) => ({ name: child.attributes.name ?? '', value: parseTemplate(textOf(child)) })),
    body:
      body === undefined
        ? null
        : {
            format: body.attributes.format === 'text' ? 'text' : 'json',
            template: parseTemplate(textOf(body)),
          },
    timeoutMs: attributes.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : Number(attributes.timeoutMs),
    expectedStatus: parseStatusRanges(attributes.expectedStatus ?? '200-299') ?? [[200, 299]],
    outputs: raw.children
      .filter((child) => child.name === 'output')
      .map((child) => ({
        variable: child.attributes.variable ?? '',
        language: child.attributes.language === 'jq' ? 'jq' : 'feel',
        expression: textOf(child),
      })),
  };
}

/** Every secret name the request refers to. */
export function connectorSecretNames(config: HttpConnectorConfig): string[] {
  return [
    ...new Set([
      ...secretNamesIn(config.url),
      ...config.headers.flatMap((header) => secretNamesIn(header.value)),
      ...(config.body ? secretNamesIn(config.body.template) : []),
    ]),
  ];
}

/** The `<weft:httpConnector>` extension for the BPMN compiler: it implements service and send tasks. */
export const httpConnectorExtension: ExtensionSpec = {
  implements: ['serviceTask', 'sendTask'],
  validate: httpConnectorProblems,
};
