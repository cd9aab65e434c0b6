/** Where archive files live: the local filesystem or an S3-compatible bucket. */
export interface ObjectStore {
  /** Where the store is, for logs and docs, never with credentials: `file:///…` or `s3://bucket/prefix`. */
  readonly location: string;
  /** Stores the local file `path` under `key` atomically (readers see the whole object or nothing); overwrites. */
  putFile(key: string, path: string): Promise<void>;
  /** A local file path holding the object's bytes, for DuckDB to read: the file itself (local backend) or a copy in the download cache (S3); undefined when the object does not exist. */
  localPath(key: string): Promise<string | undefined>;
  /** The object's bytes, or undefined when absent. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes the object (and any cached copy); an absent object is not an error. */
  delete(key: string): Promise<void>;
  /** Every key under `prefix` (all pages), sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * Removes what writes that died left behind, older than `maxAgeMs`, and resolves with how many
   * files; only stores that write through temporary files have it (the local folder; S3's PUT is atomic).
   */
  sweepTemporary?(maxAgeMs: number): Promise<number>;
}

/**
 * Thrown when the store cannot be reached or answers with a server error; the records service
 * answers 503 ARCHIVE_STORE_UNAVAILABLE. Its message never holds credentials, and it carries no
 * cause (an SDK error may hold signed request headers).
 */
export class ObjectStoreUnavailableError extends Error {
  override readonly name = 'ObjectStoreUnavailableError';
}
