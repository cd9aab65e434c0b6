import { parseCamundaDate } from './camunda-date.js';
import { CamundaErrors } from './camunda-errors.js';

/*
 * Reads the query strings of Camunda's list endpoints: each parameter once, as text; flags `true`
 * or `false`; lists comma-separated; dates in Camunda's format. A parameter the endpoint does not
 * support is a 400 that names it and lists the supported ones.
 */

const defaultPageSize = 100;
const maxPageSize = 1000;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for text that can be a weft id (a UUID): other ids name nothing in weft. */
export function isWeftId(text: string): boolean {
  return uuidPattern.test(text);
}

/** The paging of a list: `firstResult` and `maxResults` (default 100, at most 1000). */
export interface Paging {
  offset: number;
  limit: number;
}

/** Paging of a Camunda list in Camunda's terms: `firstResult` and `maxResults`. */
export interface Page {
  firstResult: number;
  maxResults: number;
}

/** A reader of one request's query parameters. */
export class QueryParameters {
  private readonly parameters: Record<string, unknown>;

  /** Refuses any parameter outside `allowed` (400 naming it). */
  constructor(raw: unknown, allowed: readonly string[]) {
    this.parameters = (raw ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(this.parameters)) {
      if (!allowed.includes(name))
        throw CamundaErrors.invalid(
          `The query parameter '${name}' is not supported by weft; supported: ${allowed.join(', ')}`,
        );
    }
  }

  /** A text parameter. */
  text(name: string): string | undefined {
    const value = this.parameters[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > 1000)
      throw CamundaErrors.invalid(`The query parameter '${name}' must be given once, as text`);
    return value;
  }

  /** A comma-separated list (at most 1000 items). */
  list(name: string): string[] | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const items = value.split(',').filter((item) => item !== '');
    if (items.length > 1000)
      throw CamundaErrors.invalid(`The query parameter '${name}' lists more than 1000 values`);
    return items;
  }

  /** `true` or `false`; undefined when absent. */
  flag(name: string): boolean | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (value !== 'true' && value !== 'false')
      throw CamundaErrors.invalid(`The query parameter '${name}' must be true or false`);
    return value === 'true';
  }

  /** True only when given as `true` (Camunda's filter flags: `false` means no filter). */
  set(name: string): boolean {
    return this.flag(name) === true;
  }

  /** A non-negative integer. */
  whole(name: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!/^\d{1,9}$/.test(value))
      throw CamundaErrors.invalid(`The query parameter '${name}' must be a non-negative integer`);
    return Number(value);
  }

  /** A date in Camunda's format. */
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

  /**
   * A parameter and its list form (`processDefinitionKey` and `processDefinitionKeyIn`) as one list
   * of the values given; undefined when neither is.
   */
  values(single: string, list: string): string[] | undefined {
    const one = this.text(single);
    const many = this.list(list);
    if (one === undefined && many === undefined) return undefined;
    return [...(one === undefined ? [] : [one]), ...(many ?? [])];
  }

  /** One of `values`. */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value))
      throw CamundaErrors.invalid(`The query parameter '${name}' must be one of ${values.join(', ')}`);
    return value as T;
  }

  /** The paging in Camunda's own terms, for the APIs that keep them. */
  page(): Page {
    const { offset, limit } = this.paging();
    return { firstResult: offset, maxResults: limit };
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

  /** `firstResult` and `maxResults`. */
  paging(): Paging {
    return {
      offset: this.whole('firstResult') ?? 0,
      limit: Math.min(this.whole('maxResults') ?? defaultPageSize, maxPageSize),
    };
  }

  /** `sortBy` (one of `sortable`, each mapped to weft's) and `sortOrder`; both or neither, as in Camunda. */
  sort<T extends string>(
    sortable: Readonly<Record<string, T>>,
    fallback: T,
  ): { sortBy: T; descending: boolean } {
    const sortBy = this.text('sortBy');
    const sortOrder = this.text('sortOrder');
    if ((sortBy === undefined) !== (sortOrder === undefined))
      throw CamundaErrors.invalid('Only a single sorting parameter specified. sortBy and sortOrder required');
    if (sortOrder !== undefined && sortOrder !== 'asc' && sortOrder !== 'desc')
      throw CamundaErrors.invalid(`sortOrder parameter has invalid value: ${sortOrder}`);
    if (sortBy === undefined) return { sortBy: fallback, descending: false };
    const mapped = Object.hasOwn(sortable, sortBy) ? sortable[sortBy] : undefined;
    if (mapped === undefined)
      throw CamundaErrors.invalid(
        `sortBy parameter has invalid value: ${sortBy}; weft sorts by ${Object.keys(sortable).join(', ')}`,
      );
    return { sortBy: mapped, descending: sortOrder === 'desc' };
  }
}

/** The names of the paging and sorting parameters, for the allowed lists. */
export const pagingParameters = ['firstResult', 'maxResults'] as const;
export const sortingParameters = ['sortBy', 'sortOrder'] as const;

// The nil UUID: no weft row has it, so a filter on it selects nothing.
const nothing = '00000000-0000-0000-0000-000000000000';

/**
 * Camunda's id filter, or a list that selects nothing when `withoutTenantId` is asked, as every weft
 * row belongs to an org (a tenant).
 */
export function idFilter(ids: string[] | undefined, withoutTenant: boolean): string[] | undefined {
  return withoutTenant ? [nothing] : ids;
}
