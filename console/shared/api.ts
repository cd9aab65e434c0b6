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

/** A response's body with its headers (paging headers such as `X-Total-Count`, `X-Next-Cursor`). */
export interface ApiResponse<T> {
  data: T;
  headers: Headers;
}

interface Remembered {
  etag: string;
  text: string;
  headers: Headers;
}

// GET answers remembered for revalidation; the oldest goes first past this many.
const rememberedLimit = 200;

/**
 * Calls the service's public HTTP API with the session's credentials. Answers other than 2xx
 * become ApiError with the service's error body (its `message`, or `error`/`code` for records);
 * a 401 also tells `onUnauthorized`, so the console can return to the login page. A GET sends back
 * the ETag of the answer it last got for the same URL and credentials: an unchanged list or page
 * costs a 304 with no body, which is what makes the console's polling cheap.
 */
export class ApiClient {
  private readonly remembered = new Map<string, Remembered>();

  constructor(
    private readonly credentials: () => Credentials | null,
    private readonly onUnauthorized: () => void,
  ) {}

  async call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    return (await this.request<T>(method, path, options)).data;
  }

  /** As `call`, with the response's headers. */
  async request<T>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const credentialHeaders = this.credentials()?.header() ?? {};
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...credentialHeaders,
      ...options.headers,
    };
    let body: BodyInit | undefined;
    if (options.body instanceof FormData || typeof options.body === 'string') body = options.body;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    // Keyed by the credentials too: another user's answer is never reused.
    const key = method === 'GET' ? `${JSON.stringify(credentialHeaders)} ${path}` : undefined;
    const known = key === undefined ? undefined : this.remembered.get(key);
    if (known) headers['if-none-match'] = known.etag;
    const response = await fetch(path, {
      method,
      headers,
      // The ETags are handled here; the browser's own cache would answer 200 from memory instead.
      cache: 'no-store',
      ...(body === undefined ? {} : { body }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (response.status === 304 && known) return { data: parse(known.text) as T, headers: known.headers };
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : parse(text);
    if (!response.ok) {
      if (response.status === 401) this.onUnauthorized();
      throw toApiError(response.status, parsed, text);
    }
    const etag = response.headers.get('etag');
    if (key !== undefined && etag !== null) this.remember(key, { etag, text, headers: response.headers });
    return { data: parsed as T, headers: response.headers };
  }

  private remember(key: string, entry: Remembered): void {
    this.remembered.delete(key);
    this.remembered.set(key, entry);
    if (this.remembered.size > rememberedLimit) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
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

function parse(text: string): unknown {
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
