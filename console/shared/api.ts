/** The error body both services answer with, as the console shows it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown,
  ) {
    super(message);
  }
}

/** How a request authenticates: a bearer token (workflow JWT, records API key) or none. */
export interface Credentials {
  header(): Record<string, string>;
}

/** Options of one API call. */
export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Calls the service's public HTTP API with the session's credentials. Answers other than 2xx
 * become ApiError with the service's error body (its `message`, or `error`/`code` for records);
 * a 401 also tells `onUnauthorized`, so the console can return to the login page.
 */
export class ApiClient {
  constructor(
    private readonly credentials: () => Credentials | null,
    private readonly onUnauthorized: () => void,
  ) {}

  async call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.credentials()?.header(),
      ...options.headers,
    };
    let body: BodyInit | undefined;
    if (options.body instanceof FormData || typeof options.body === 'string') body = options.body;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : safeParse(text);
    if (!response.ok) {
      if (response.status === 401) this.onUnauthorized();
      throw toApiError(response.status, parsed, text);
    }
    return parsed as T;
  }

  get<T>(path: string, options?: CallOptions): Promise<T> {
    return this.call<T>('GET', path, options);
  }
  post<T>(path: string, body?: unknown, options?: CallOptions): Promise<T> {
    return this.call<T>('POST', path, { ...options, body });
  }
  put<T>(path: string, body?: unknown, options?: CallOptions): Promise<T> {
    return this.call<T>('PUT', path, { ...options, body });
  }
  patch<T>(path: string, body?: unknown, options?: CallOptions): Promise<T> {
    return this.call<T>('PATCH', path, { ...options, body });
  }
  delete<T>(path: string, options?: CallOptions): Promise<T> {
    return this.call<T>('DELETE', path, options);
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toApiError(status: number, body: unknown, text: string): ApiError {
  if (body !== null && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const message =
      typeof record.message === 'string'
        ? record.message
        : typeof record.error === 'string'
          ? record.error
          : `HTTP ${status}`;
    const code = typeof record.code === 'string' ? record.code : String(status);
    return new ApiError(status, code, message, record.details ?? record);
  }
  return new ApiError(status, String(status), text || `HTTP ${status}`, undefined);
}

/** Builds a query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
