import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

/** What checking one live response against the document found (empty: it conforms). */
export interface Conformance {
  /** The document path the request matched, or undefined when none did. */
  path: string | undefined;
  problems: string[];
}

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const methods = ['get', 'post', 'put', 'patch', 'delete'];
const segmentsOf = (path: string) => path.split('?')[0]!.split('/');
const isParameter = (segment: string) => /^\{.+\}$/.test(segment);

/**
 * Validates live responses against an OpenAPI 3.0 document with Ajv: the request's path and method
 * must be in the document, the status listed for the operation, and a JSON body valid against the
 * listed schema (components resolved, `nullable` understood, formats checked).
 */
export class OpenApiValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: [string, string[]][];

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: document.components }, 'openapi');
    this.paths = Object.keys(document.paths as Json).map((path) => [path, path.split('/')]);
  }

  /** The document path a concrete URL is an instance of: the one with the fewest parameters. */
  pathOf(url: string): string | undefined {
    const segments = segmentsOf(url);
    let best: { path: string; parameters: number } | undefined;
    for (const [path, template] of this.paths) {
      if (template.length !== segments.length) continue;
      let parameters = 0;
      const fits = template.every((part, index) => {
        if (isParameter(part)) return ++parameters >= 0 && segments[index] !== '';
        return part === decodeURIComponent(segments[index] ?? '');
      });
      if (fits && (best === undefined || parameters < best.parameters)) best = { path, parameters };
    }
    return best?.path;
  }

  /** Whether the document describes `method` on a path matching the route template `url` (`:name` parameters). */
  describesRoute(method: string, url: string): boolean {
    const segments = url.split('/');
    return this.paths.some(
      ([path, template]) =>
        template.length === segments.length &&
        (this.document.paths as Record<string, Json>)[path]?.[method.toLowerCase()] !== undefined &&
        template.every((part, index) => {
          const routePart = segments[index] ?? '';
          return routePart.startsWith(':') || routePart === '*' || part === routePart;
        }),
    );
  }

  /** Checks one response. */
  check(method: string, url: string, status: number, contentType: string, body: string): Conformance {
    const path = this.pathOf(url);
    // A URL of no route (or of no served schema) can only be the 404 error body.
    if (path === undefined)
      return status === 404
        ? {
            path,
            problems: this.validateJson('RecordsError', { $ref: '#/components/schemas/RecordsError' }, body),
          }
        : { path, problems: [`no path of the document matches ${url}`] };
    const operation = (this.document.paths as Record<string, Record<string, Operation>>)[path]?.[
      method.toLowerCase()
    ];
    if (!operation || !methods.includes(method.toLowerCase()))
      return { path, problems: [`${method} ${path} is not in the document`] };
    const response = operation.responses?.[String(status)];
    if (!response) return { path, problems: [`${method} ${path} does not list status ${status}`] };
    const mediaType = contentType.split(';')[0]!.trim();
    const content = response.content;
    if (content === undefined || Object.keys(content).length === 0)
      return {
        path,
        problems: body === '' ? [] : [`${status} documents no body, got ${body.slice(0, 200)}`],
      };
    const entry = content[mediaType];
    if (!entry) return { path, problems: [`${status} does not list content type ${mediaType}`] };
    if (mediaType !== 'application/json' || entry.schema === undefined) return { path, problems: [] };
    return { path, problems: this.validateJson(`${method} ${path} ${status}`, entry.schema, body) };
  }

  private validateJson(key: string, schema: Json, body: string): string[] {
    const validate = this.validator(key, schema);
    if (validate(JSON.parse(body))) return [];
    return (validate.errors ?? []).map(
      (error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      const rewritten = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'),
      ) as Json;
      validate = this.ajv.compile(rewritten);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
