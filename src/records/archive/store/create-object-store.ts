import type { ArchiveStoreConfig } from '../../../platform/config/index.js';
import { LocalObjectStore } from './local-object-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-object-store.js';

/** The object store the configuration names: a local folder or an S3-compatible bucket. */
export function createObjectStore(config: ArchiveStoreConfig): ObjectStore {
  return config.kind === 'file' ? new LocalObjectStore(config.root) : new S3ObjectStore(config);
}
