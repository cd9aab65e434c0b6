export { createObjectStore } from './create-object-store.js';
export { LocalObjectStore } from './local-object-store.js';
export { assertValidKey, assertValidPrefix } from './object-keys.js';
export { ObjectStoreUnavailableError, type ObjectStore } from './object-store.js';
export { S3ObjectStore } from './s3-object-store.js';
