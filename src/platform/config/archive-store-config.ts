import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the records archive files live (docs/records/archive.md, "Where archive files live"). */
export type ArchiveStoreConfig = FileArchiveStoreConfig | S3ArchiveStoreConfig;

/** Archive files in a folder of the local filesystem. */
export interface FileArchiveStoreConfig {
  readonly kind: 'file';
  /** Absolute path of the root folder. */
  readonly root: string;
}

/** Archive files in an S3-compatible bucket. */
export interface S3ArchiveStoreConfig {
  readonly kind: 's3';
  readonly bucket: string;
  /** Key prefix inside the bucket, without leading or trailing slash; '' for the bucket's root. */
  readonly prefix: string;
  /** Endpoint URL (`http://127.0.0.1:9000`); undefined: AWS S3 of `region`. */
  readonly endpoint: string | undefined;
  readonly region: string;
  /** Static credentials; undefined: the AWS SDK's default provider chain. Never logged. */
  readonly credentials: ArchiveStoreCredentials | undefined;
  /** Longest wait for a connection, and for any sign of life of a request, per attempt. */
  readonly timeoutMs: number;
  /** The download cache behind `localPath`. */
  readonly cache: { readonly dir: string; readonly maxBytes: number };
}

/** Static S3 credentials. Serialised (JSON, logs) as `[redacted]`. */
export interface ArchiveStoreCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string | undefined;
}

/** The variables this section is read from, after defaults and conversion. */
export interface ArchiveStoreVariables {
  WEFT_DATA_DIR: string;
  RECORDS_ARCHIVE_URL?: string | undefined;
  RECORDS_ARCHIVE_S3_ENDPOINT?: string | undefined;
  AWS_ENDPOINT_URL_S3?: string | undefined;
  AWS_REGION: string;
  AWS_ACCESS_KEY_ID?: string | undefined;
  AWS_SECRET_ACCESS_KEY?: string | undefined;
  AWS_SESSION_TOKEN?: string | undefined;
  RECORDS_ARCHIVE_TIMEOUT_MS: number;
  RECORDS_ARCHIVE_CACHE_DIR?: string | undefined;
  RECORDS_ARCHIVE_CACHE_MB: number;
}

/**
 * Builds the archive store section, or returns the problem as `VARIABLE: reason` (never echoing a
 * value, since a URL or key may carry a secret).
 */
export function archiveStoreConfigOf(env: ArchiveStoreVariables): ArchiveStoreConfig | string {
  const url = env.RECORDS_ARCHIVE_URL;
  if (url === undefined) return { kind: 'file', root: path.resolve(env.WEFT_DATA_DIR, 'archive') };
  if (url.startsWith('file:')) {
    let root: string;
    try {
      root = fileURLToPath(url);
    } catch {
      return 'RECORDS_ARCHIVE_URL: a file URL must be file:///absolute/path';
    }
    return { kind: 'file', root: path.resolve(root) };
  }
  if (!url.startsWith('s3:')) {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url))
      return 'RECORDS_ARCHIVE_URL: must be a path, file:///absolute/path or s3://bucket/prefix';
    return { kind: 'file', root: path.resolve(url) };
  }
  const s3 = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  const bucket = s3?.[1] ?? '';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    return 'RECORDS_ARCHIVE_URL: s3://bucket/prefix needs a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens (and no credentials)';
  const prefix = (s3?.[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (
    prefix !== '' &&
    !prefix.split('/').every((segment) => /^[A-Za-z0-9_=-][A-Za-z0-9._=-]*$/.test(segment))
  )
    return 'RECORDS_ARCHIVE_URL: the prefix of s3://bucket/prefix is made of segments of letters, digits and . _ = - (not starting with a dot)';
  const endpoint = env.RECORDS_ARCHIVE_S3_ENDPOINT ?? env.AWS_ENDPOINT_URL_S3;
  const endpointVariable =
    env.RECORDS_ARCHIVE_S3_ENDPOINT === undefined ? 'AWS_ENDPOINT_URL_S3' : 'RECORDS_ARCHIVE_S3_ENDPOINT';
  if (endpoint !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(endpoint);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol))
      return `${endpointVariable}: must be an http:// or https:// URL`;
    if (parsed.username !== '' || parsed.password !== '')
      return `${endpointVariable}: must not carry credentials (use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`;
  }
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    return 'AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: set both or neither';
  if (accessKeyId === undefined && env.AWS_SESSION_TOKEN !== undefined)
    return 'AWS_SESSION_TOKEN: needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  return {
    kind: 's3',
    bucket,
    prefix,
    endpoint: endpoint?.replace(/\/+$/, ''),
    region: env.AWS_REGION,
    credentials:
      accessKeyId === undefined || secretAccessKey === undefined
        ? undefined
        : redactedCredentials({ accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN }),
    timeoutMs: env.RECORDS_ARCHIVE_TIMEOUT_MS,
    cache: {
      dir: path.resolve(env.RECORDS_ARCHIVE_CACHE_DIR ?? path.join(env.WEFT_DATA_DIR, 'archive-cache')),
      maxBytes: env.RECORDS_ARCHIVE_CACHE_MB * 1024 * 1024,
    },
  };
}

// Whatever logs or serialises the config (pino, JSON.stringify, util.inspect) sees no secret.
function redactedCredentials(credentials: ArchiveStoreCredentials): ArchiveStoreCredentials {
  const hidden = () => '[redacted]';
  Object.defineProperties(credentials, {
    toJSON: { value: hidden, enumerable: false },
    [Symbol.for('nodejs.util.inspect.custom')]: { value: hidden, enumerable: false },
  });
  return credentials;
}
