import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import type { S3ArchiveStoreConfig } from '../../../platform/config/index.js';
import { DownloadCache, type FetchOutcome } from './download-cache.js';
import { assertValidKey, assertValidPrefix } from './object-keys.js';
import { ObjectStoreUnavailableError, type ObjectStore } from './object-store.js';
import { errorNameOf, httpStatusOf, isUnavailable, storeFailure } from './s3-errors.js';

const maxAttempts = 3;
// User metadata holding the SHA-256 (hex) of the uploaded file, checked on every download.
const digestMetadata = 'sha256';

/** A body that does not match the digest stored with the object: read again. */
class TornRead extends Error {}

/**
 * An object store in an S3-compatible bucket, under an optional key prefix. Requests go to the
 * configured endpoint (path-style unless it is AWS's), with the configured credentials or else the
 * AWS SDK's default provider chain. Every attempt may wait `timeoutMs` to connect and `timeoutMs`
 * of silence; an operation makes up to 3 attempts. Unreachable, failing (5xx) or throttling
 * stores raise ObjectStoreUnavailableError. Uploads carry their SHA-256 (checked by S3, and kept as
 * user metadata) and are checked for their length; downloads are checked against that SHA-256
 * and read again when they do not match. `localPath` serves copies from a DownloadCache,
 * revalidated with a conditional GET on every call.
 */
export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  private readonly client: S3Client;
  // Uploads stream a file, which the SDK cannot rewind for a retry: putFile retries itself.
  private readonly uploadClient: S3Client;
  private readonly cache: DownloadCache;

  constructor(private readonly config: S3ArchiveStoreConfig) {
    this.location = `s3://${config.bucket}${config.prefix === '' ? '' : `/${config.prefix}`}`;
    this.client = clientOf(config, maxAttempts);
    this.uploadClient = clientOf(config, 1);
    this.cache = new DownloadCache(config.cache.dir, config.cache.maxBytes);
  }

  async putFile(key: string, file: string): Promise<void> {
    const objectKey = this.objectKeyOf(key);
    const { size, sha256 } = await digestOf(file);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.upload(objectKey, file, size, sha256);
        return;
      } catch (error) {
        if (attempt >= maxAttempts || !isUnavailable(error))
          throw storeFailure(error, this.location, 'PutObject');
        await sleep(backoffMs(attempt));
      }
    }
  }

  async localPath(key: string): Promise<string | undefined> {
    const objectKey = this.objectKeyOf(key);
    return this.cache.pathOf(key, (version, temporary) => this.download(objectKey, version, temporary));
  }

  async get(key: string): Promise<Buffer | undefined> {
    const objectKey = this.objectKeyOf(key);
    return this.call('GetObject', () =>
      untorn(async () => {
        const response = await this.getObject(objectKey, undefined);
        if (response === undefined) return undefined;
        const bytes = Buffer.from(await bodyOf(response).transformToByteArray());
        checkLength(response, bytes.length);
        checkDigest(response, createHash('sha256').update(bytes).digest('hex'));
        return bytes;
      }),
    );
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKeyOf(key);
    await this.call('DeleteObject', () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: objectKey })),
    );
    await this.cache.remove(key);
  }

  async list(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    const root = this.config.prefix === '' ? '' : `${this.config.prefix}/`;
    const keys: string[] = [];
    // ListObjects (v1) paged by Marker, the last key of the page: the listing every S3-compatible
    // server implements (s3rver 5 cannot issue v2 continuation tokens on Node 20: they use DES).
    let marker: string | undefined;
    for (;;) {
      const page = await this.call('ListObjects', () =>
        this.client.send(
          new ListObjectsCommand({ Bucket: this.config.bucket, Prefix: root + prefix, Marker: marker }),
        ),
      );
      const found = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
      for (const key of found) if (key.startsWith(root)) keys.push(key.slice(root.length));
      const last = page.NextMarker ?? found.at(-1);
      if (page.IsTruncated !== true || last === undefined || last === marker) break;
      marker = last;
    }
    return keys.sort();
  }

  private async upload(objectKey: string, file: string, size: number, sha256: Buffer): Promise<void> {
    const checksum = sha256.toString('base64');
    // A given checksum is sent as a header (no trailer); S3 refuses a body that does not match it.
    const response = await this.uploadClient.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: objectKey,
        Body: createReadStream(file),
        ContentLength: size,
        ChecksumSHA256: checksum,
        Metadata: { [digestMetadata]: sha256.toString('hex') },
      }),
    );
    if (response.ChecksumSHA256 !== undefined && response.ChecksumSHA256 !== checksum)
      throw new Error(`The archive store stored ${objectKey} with another SHA-256 than the file's`);
    // Servers that neither check nor echo the checksum: the stored length must be the file's.
    const head = await this.uploadClient.send(
      new HeadObjectCommand({ Bucket: this.config.bucket, Key: objectKey }),
    );
    if (head.ContentLength !== size)
      throw new Error(
        `The archive store holds ${String(head.ContentLength)} bytes of ${objectKey} after an upload of ${size}`,
      );
  }

  private async download(
    objectKey: string,
    version: string | undefined,
    temporary: string,
  ): Promise<FetchOutcome> {
    return this.call('GetObject', () =>
      untorn(async (): Promise<FetchOutcome> => {
        const response = await this.getObject(objectKey, version);
        if (response === undefined) return { kind: 'absent' };
        if (response === 'unchanged') return { kind: 'unchanged' };
        let written = 0;
        const hash = createHash('sha256');
        const counted = Readable.from(bodyOf(response) as AsyncIterable<Uint8Array>).on(
          'data',
          (chunk: Uint8Array) => {
            written += chunk.length;
            hash.update(chunk);
          },
        );
        await pipeline(counted, createWriteStream(temporary, { mode: 0o600 }));
        checkLength(response, written);
        checkDigest(response, hash.digest('hex'));
        return { kind: 'fetched', version: (response.ETag ?? '').replace(/"/g, '') };
      }),
    );
  }

  private getObject(objectKey: string, ifNoneMatch: undefined): Promise<GetObjectCommandOutput | undefined>;
  private getObject(
    objectKey: string,
    ifNoneMatch: string | undefined,
  ): Promise<GetObjectCommandOutput | 'unchanged' | undefined>;
  private async getObject(
    objectKey: string,
    ifNoneMatch: string | undefined,
  ): Promise<GetObjectCommandOutput | 'unchanged' | undefined> {
    try {
      return await this.client.send(
        new GetObjectCommand({
          Bucket: this.config.bucket,
          Key: objectKey,
          IfNoneMatch: ifNoneMatch === undefined ? undefined : `"${ifNoneMatch}"`,
        }),
      );
    } catch (error) {
      if (httpStatusOf(error) === 304) return 'unchanged';
      if (errorNameOf(error) === 'NoSuchKey' || httpStatusOf(error) === 404) return undefined;
      throw error;
    }
  }

  private async call<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeFailure(error, this.location, operation);
    }
  }

  private objectKeyOf(key: string): string {
    assertValidKey(key);
    return this.config.prefix === '' ? key : `${this.config.prefix}/${key}`;
  }
}

function clientOf(config: S3ArchiveStoreConfig, attempts: number): S3Client {
  const awsEndpoint =
    config.endpoint === undefined || /\.amazonaws\.com(\.cn)?$/.test(new URL(config.endpoint).hostname);
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: !awsEndpoint,
    credentials:
      config.credentials === undefined
        ? undefined
        : {
            accessKeyId: config.credentials.accessKeyId,
            secretAccessKey: config.credentials.secretAccessKey,
            sessionToken: config.credentials.sessionToken,
          },
    maxAttempts: attempts,
    // The SDK would print its warnings on the console; failures reach the caller as errors.
    logger: silentLogger,
    // socketTimeout is a silence limit, so a large upload or download may take as long as it needs.
    requestHandler: { connectionTimeout: config.timeoutMs, socketTimeout: config.timeoutMs },
  });
}

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bodyOf(response: GetObjectCommandOutput): NonNullable<GetObjectCommandOutput['Body']> {
  if (response.Body === undefined) throw new ObjectStoreUnavailableError('The archive store sent no body');
  return response.Body;
}

// A body cut short (a dropped connection the client did not notice) is not an object.
function checkLength(response: GetObjectCommandOutput, received: number): void {
  if (response.ContentLength !== undefined && response.ContentLength !== received)
    throw new ObjectStoreUnavailableError(
      `The archive store sent ${received} of ${response.ContentLength} bytes; retry later`,
    );
}

// Objects written by other tools carry no digest and are taken as they come.
function checkDigest(response: GetObjectCommandOutput, received: string): void {
  const expected = response.Metadata?.[digestMetadata];
  if (expected !== undefined && expected.toLowerCase() !== received) throw new TornRead();
}

// A body that does not match its digest (a read racing an overwrite on a store that is not
// atomic, or corruption on the way) is read again, up to the attempts of any request.
async function untorn<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof TornRead)) throw error;
      if (attempt >= maxAttempts)
        throw new ObjectStoreUnavailableError('The archive store sent bytes that do not match their SHA-256');
      await sleep(backoffMs(attempt));
    }
  }
}

async function digestOf(file: string): Promise<{ size: number; sha256: Buffer }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  const { size: expected } = await stat(file);
  if (expected !== size) throw new Error(`The file ${file} changed while it was read`);
  return { size, sha256: hash.digest() };
}

function backoffMs(attempt: number): number {
  return Math.min(2000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
}
