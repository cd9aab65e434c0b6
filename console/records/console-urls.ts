import { base } from './session.js';

/** Console URLs of the records pages (the schema path is kept as its segments). */
export const consoleUrls = {
  table: (path: string) => `${base}/records/${path}`,
  create: (path: string) => `${base}/records/${path}/new`,
  record: (path: string, id: string) => `${base}/records/${path}/${id}`,
  history: (path: string, id: string) => `${base}/records/${path}/${id}/history`,
};
