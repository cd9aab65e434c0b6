import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { OutboundPolicy } from './outbound-guard.js';
import { OutboundRefusedError } from './outbound-guard.js';

/** One request to send. */
export interface HttpCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
  maxResponseBytes: number;
  policy: OutboundPolicy;
}

/** What came back. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The request did not get a complete answer in time. */
export class HttpTimeoutError extends Error {
  override readonly name = 'HttpTimeoutError';
}

/** The response body was larger than allowed. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
}

/**
 * Sends one request with node:http(s). The whole exchange (connect, send, read) must end within
 * the timeout; the body is read up to `maxResponseBytes`, then the connection is dropped. Addresses
 * are checked by the outbound policy where they are resolved (or up front for an IP literal).
 * Redirects are not followed: a 3xx is an answer like any other.
 */
export function sendHttp(call: HttpCall): Promise<HttpAnswer> {
  const { url, policy } = call;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(hostname) !== 0) {
    const refused = policy.refusal(hostname, policy.hostAllowed(hostname));
    if (refused !== null) return Promise.reject(new OutboundRefusedError(refused));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(answer as HttpAnswer);
    };
    const headers: Record<string, string> = { ...call.headers };
    if (call.body !== null) headers['content-length'] = String(Buffer.byteLength(call.body));
    const request = transport.request(url, {
      method: call.method,
      headers,
      lookup: policy.lookupFor(hostname),
      agent: false,
    });
    const timer = setTimeout(() => {
      const error = new HttpTimeoutError(`no complete answer within ${call.timeoutMs} ms`);
      request.destroy(error);
      finish(error);
    }, call.timeoutMs);
    request.once('error', (error) => finish(error));
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > call.maxResponseBytes) {
          const error = new ResponseTooLargeError(`response body over ${call.maxResponseBytes} bytes`);
          response.destroy(error);
          request.destroy(error);
          finish(error);
          return;
        }
        chunks.push(chunk);
      });
      response.once('error', (error) => finish(error));
      response.once('end', () => {
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        finish(null, {
          status: response.statusCode ?? 0,
          headers: answerHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    if (call.body !== null) request.write(call.body);
    request.end();
  });
}
