import type { FrameworkFailure } from './error-mapping.js';
import type { ServiceError } from './service-error.js';

/** How a service names and renders its errors. */
export interface ErrorCatalogue {
  /** Turns a framework failure (validation, bad JSON, body too large…) into this service's error. */
  fromFramework(failure: Exclude<FrameworkFailure, { kind: 'internal' }>): ServiceError;
  notFound(method: string, url: string): ServiceError;
  internal(): ServiceError;
  /** The database cannot be reached. */
  unavailable(): ServiceError;
  /** The JSON body of an error response. */
  render(error: ServiceError, requestId: string): Record<string, unknown>;
  /** This service's error for a thrown value of its own layers (the engine's refusals); undefined: none. */
  fromError?(error: unknown): ServiceError | undefined;
}
