import type {
  FastifyReply,
  FastifyRequest,
  FastifySchemaValidationError,
  HookHandlerDoneFunction,
} from 'fastify';
import type { ServiceError } from '../../platform/http/service-error.js';
import { RecordsErrors } from '../errors.js';

/** The records service's answer to a request part its route schema refuses. */
export interface PartProblems {
  /** The part is not a JSON object (or is missing). */
  notObject?: () => ServiceError;
  /** The first member the route does not take, in the order sent. */
  unknownMember: (name: string) => ServiceError;
}

/**
 * A route's `schemaErrorFormatter` that answers a refused part with the service's own 400 (per
 * `dataVar`: `body`, `querystring`), exactly as the hand-written checks the schema replaced did.
 */
export function partProblems(
  parts: Partial<Record<'body' | 'querystring', PartProblems>>,
): (errors: FastifySchemaValidationError[], dataVar: string) => Error {
  return (errors, dataVar) => {
    const problems = parts[dataVar as 'body' | 'querystring'];
    if (problems !== undefined) {
      const notObject = errors.some((error) => error.instancePath === '' && error.keyword === 'type');
      if (notObject && problems.notObject) return problems.notObject();
      const unknown = errors.find((error) => error.keyword === 'additionalProperties');
      const name = (unknown?.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
      if (typeof name === 'string') return problems.unknownMember(name);
    }
    return RecordsErrors.validation(
      'Request validation failed',
      errors.map((error) => ({
        field: `${dataVar}${error.instancePath.replace(/\//g, '.')}`,
        reason: error.message ?? 'is invalid',
      })),
    );
  };
}

/** `The body must be a JSON object`, as the records routes have always answered. */
export const bodyNotObject = () => RecordsErrors.validation('The body must be a JSON object');

/** `Unknown property X` naming the properties the route takes. */
export const unknownProperty = (allowed: readonly string[]) => (name: string) =>
  RecordsErrors.validation(`Unknown property ${name.slice(0, 100)}`, [
    { field: name.slice(0, 100), reason: `is not one of ${allowed.join(', ')}` },
  ]);

/** `Unknown parameter X` naming the query parameters the route takes. */
export const unknownParameter = (allowed: readonly string[]) => (name: string) =>
  RecordsErrors.validation(`Unknown parameter ${name.slice(0, 100)}`, [
    { field: name.slice(0, 100), reason: `is not one of ${allowed.join(', ')}` },
  ]);

/**
 * A step that runs before a route's schema validation (resolving the schema, route RBAC, the record
 * id), so that a request the route refuses for those reasons gets the same answer whatever its body
 * or query string; the handler reads what it found with `of(request)`.
 */
export function beforeValidation<T>(step: (request: FastifyRequest) => T) {
  const found = new WeakMap<FastifyRequest, T>();
  return {
    preValidation: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      try {
        found.set(request, step(request));
      } catch (error) {
        return done(error as Error);
      }
      done();
    },
    of: (request: FastifyRequest): T => {
      if (!found.has(request)) throw new Error('beforeValidation: the route did not run its preValidation');
      return found.get(request) as T;
    },
  };
}
