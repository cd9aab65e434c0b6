import type { FastifyRequest } from 'fastify';
import { findInexactNumbers, type InexactNumbers } from '../json/inexact-numbers.js';
import type { FrameworkFailure } from './error-mapping.js';
import type { HttpServer } from './http-server.js';

const inexactByRequest = new WeakMap<FastifyRequest, InexactNumbers>();

/**
 * Parses JSON bodies with Fastify's own parser (same errors, same prototype-poisoning rules) and
 * notes the numbers `JSON.parse` changed: digits a 64-bit float cannot hold (9007199254740993,
 * 0.1234567890123456789) or values beyond its range (1e400). A body without such a number costs
 * one regular-expression test more.
 */
export function parseJsonNotingInexactNumbers(app: HttpServer): void {
  const parse = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    void parse(request, text, (error: Error | null, value?: unknown) => {
      if (error === null) {
        const inexact = findInexactNumbers(text);
        if (inexact !== null) inexactByRequest.set(request, inexact);
      }
      done(error, value);
    });
  });
}

/** The numbers of the request's JSON body that `JSON.parse` changed, if any. */
export function inexactNumbersOf(request: FastifyRequest): InexactNumbers | undefined {
  return inexactByRequest.get(request);
}

const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/**
 * The 400 of a body with numbers a double cannot hold, on a route that does not store them exactly:
 * one error per number, naming its path (`body.variables.amount`) and what it would have become.
 */
export function inexactNumberFailure(
  inexact: InexactNumbers,
): Extract<FrameworkFailure, { kind: 'validation' }> {
  return {
    kind: 'validation',
    message:
      'The request has numbers a 64-bit float cannot hold exactly; send at most 15 significant digits, or the value as a string',
    errors: inexact.numbers.slice(0, 20).map((number) => {
      const path = ['body', ...number.path].join('.');
      return {
        path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
        message: `is ${shown(number.text)}, which would be stored as ${shown(String(Number(number.text)))}`,
      };
    }),
  };
}
