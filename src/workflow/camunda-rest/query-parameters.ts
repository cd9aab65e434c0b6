import { parseCamundaDate } from './camunda-date.js';
import { CamundaErrors } from './camunda-errors.js';

/** The default and the largest page of a Camunda list (`maxResults`). */
export const defaultPageSize = 100;
export const maxPageSize = 1000;

/** Paging of a Camunda list: `firstResult` and `maxResults`. */
export interface Page {
  firstResult: number;
  maxResults: number;
}

/** The parameters of the paging of a Camunda list. */
export const pageParameters = ['firstResult', 'maxResults'] as const;

/**
 * Reads a Camunda query string: refuses a parameter outside `allowed` with a 400 naming it and the
 * supported ones, and reads each parameter once, as text, a flag, a whole number, a comma list or
 * a date. Every failure is a 400 InvalidRequestException naming the parameter.
 */
export class QueryParameters {
  private readonly parameters: Record<string, unknown>;

  constructor(raw: unknown, allowed: readonly string[]) {
    this.parameters = (raw ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(this.parameters)) {
      if (!allowed.includes(name))
        throw CamundaErrors.invalid(
          `The query parameter '${name}' is not supported by weft; supported: ${allowed.join(', ')}`,
        );
    }
  }

  /** A text parameter, given once. */
  text(name: string): string | undefined {
    const value = this.parameters[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > 1000)
      throw CamundaErrors.invalid(`The query parameter '${name}' must be given once, as text`);
    return value;
  }

  /** `true` or `false`; absent is false. */
  flag(name: string): boolean {
    const value = this.text(name);
    if (value === undefined) return false;
    if (value !== 'true' && value !== 'false')
      throw CamundaErrors.invalid(`The query parameter '${name}' must be true or false`);
    return value === 'true';
  }

  /** A non-negative integer, cut to `max`. */
  whole(name: string, fallback: number, max: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    if (!/^\d{1,9}$/.test(value))
      throw CamundaErrors.invalid(`The query parameter '${name}' must be a non-negative integer`);
    return Math.min(Number(value), max);
  }

  /** A comma-separated list. */
  list(name: string): string[] | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (value.split(',').length > 1000)
      throw CamundaErrors.invalid(`The query parameter '${name}' lists more than 1000 values`);
    return value.split(',');
  }

  /** A date in Camunda's format (camunda-date.ts). */
  date(name: string): Date | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    // A `+` left unencoded in a query string arrives as a space (…000 0200): it can only be the offset's.
    const date = parseCamundaDate(value.replace(/ (\d{2}:?\d{2})$/, '+$1'));
    if (date === null)
      throw CamundaErrors.invalid(
        `The query parameter '${name}' must be a date in the format yyyy-MM-dd'T'HH:mm:ss.SSSZ`,
      );
    return date;
  }

  /** One of `values`. */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value))
      throw CamundaErrors.invalid(`The query parameter '${name}' must be one of ${values.join(', ')}`);
    return value as T;
  }

  /** `firstResult` and `maxResults` (default 100, at most 1000). */
  page(): Page {
    return {
      firstResult: this.whole('firstResult', 0, Number.MAX_SAFE_INTEGER),
      maxResults: this.whole('maxResults', defaultPageSize, maxPageSize),
    };
  }

  /**
   * `sortBy` and `sortOrder`, which Camunda requires together; `sortBy` one of `fields`. Undefined
   * when neither is given.
   */
  sorting<T extends string>(fields: readonly T[]): { by: T; descending: boolean } | undefined {
    const by = this.oneOf('sortBy', fields);
    const order = this.oneOf('sortOrder', ['asc', 'desc'] as const);
    if (by === undefined && order === undefined) return undefined;
    if (by === undefined || order === undefined)
      throw CamundaErrors.invalid('Only a single sorting parameter specified. sortBy and sortOrder required');
    return { by, descending: order === 'desc' };
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for text that can be a weft id (a UUID); other ids name nothing in weft. */
export function isWeftId(id: string): boolean {
  return uuidPattern.test(id);
}
