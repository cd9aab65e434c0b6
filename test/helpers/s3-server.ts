import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  httpServer: Server;
  store: FilesystemStore;
}
interface FilesystemStore {
  putObject(object: { bucket: string; key: string }): Promise<unknown>;
  getObject(bucket: string, key: string, options: unknown): Promise<{ content?: unknown } | null>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

/** A running S3 API server on local disk (the `@20minutes/s3rver` package), for tests. */
export interface TestS3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** Requests the server received so far. */
  readonly requests: readonly { method: string; url: string }[];
  close(): Promise<void>;
}

/**
 * Starts s3rver in-process on a random port with a temporary folder and one bucket. Signatures are
 * not checked: s3rver 5.0.0 computes them differently from the current AWS SDK for some headers,
 * and signing is the SDK's business, not the code under test. s3rver writes an object's file and
 * its metadata in place and reads them one after the other, so a read racing a write could mix
 * two versions, which S3 never shows: here the writes and reads of one key take turns (a read
 * takes the whole body before the next write), as S3's PUT and GET are atomic.
 */
export async function startTestS3Server(bucket = 'weft-archive-test'): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'weft-s3rver-'));
  const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverConstructor;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: bucket }],
  });
  atomicObjects(server.store);
  const { port } = await server.run();
  const requests: { method: string; url: string }[] = [];
  server.httpServer.on('request', (request: { method?: string; url?: string }) =>
    requests.push({ method: request.method ?? '', url: request.url ?? '' }),
  );
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    requests,
    async close() {
      server.httpServer.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function atomicObjects(store: FilesystemStore): void {
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const result = (turns.get(name) ?? Promise.resolve()).then(work, work);
    const settled = result.catch(() => undefined);
    turns.set(name, settled);
    void settled.then(() => turns.get(name) === settled && turns.delete(name));
    return result;
  };
  const putObject = store.putObject.bind(store);
  const getObject = store.getObject.bind(store);
  store.putObject = (object) => inTurn(`${object.bucket}/${object.key}`, () => putObject(object));
  store.getObject = (bucket, key, options) =>
    inTurn(`${bucket}/${key}`, async () => {
      const object = await getObject(bucket, key, options);
      if (object?.content instanceof Readable) {
        const chunks: Buffer[] = [];
        for await (const chunk of object.content as AsyncIterable<Buffer>) chunks.push(chunk);
        object.content = Readable.from([Buffer.concat(chunks)]);
      }
      return object;
    });
}
