import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';

/**
 * The independent client of the conformance suite: godaddy's `kubernetes-client` (9.0.0) with its
 * `request`-based backend. Its requests share no code with @kubernetes/client-node 1.4 (it only uses the
 * 0.10 client-node's KubeConfig to read the kubeconfig file). Its typings cover the 1.13 swagger paths
 * only, so the parts used here are typed locally.
 */

const require = createRequire(import.meta.url);

/** A decoded JSON answer, read with `at()` or matched with toMatchObject. */
export type Loose = unknown;

/** The value at a dotted path of a decoded answer (`at(body, 'metadata.name')`). */
export function at(value: Loose, path: string): Loose {
  let v: unknown = value;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

interface KubeConfigLike {
  loadFromFile(path: string): void;
  setCurrentContext(name: string): void;
}

export interface HttpOptions {
  readonly method: string;
  readonly pathname: string;
  readonly qs?: Record<string, string | number | boolean>;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** false sends `body` as is (a string) and leaves the answer unparsed. */
  readonly json?: boolean;
}

interface RequestBackend {
  http(
    options: HttpOptions & { stream?: boolean },
  ): Promise<{ statusCode: number; body: unknown }> & Readable;
  getWatchObjectStream(options: HttpOptions): Promise<Readable>;
}

/** A resource of the fluent API generated from the swagger spec (`client.api.v1.namespaces(ns).configmaps`). */
export interface FluentResource {
  get(options?: { qs?: Record<string, string | number> }): Promise<{ statusCode: number; body: Loose }>;
  post(options: { body: unknown; qs?: Record<string, string> }): Promise<{ statusCode: number; body: Loose }>;
  put(options: { body: unknown }): Promise<{ statusCode: number; body: Loose }>;
  patch(options: {
    body: unknown;
    headers?: Record<string, string>;
  }): Promise<{ statusCode: number; body: Loose }>;
  delete(options?: { body?: unknown }): Promise<{ statusCode: number; body: Loose }>;
}

export interface IndependentClient {
  /** `client.api.v1` of kubernetes-client's fluent API. */
  readonly v1: Loose;
  readonly backend: RequestBackend;
  /** Any request, answered whatever its status: code, headers and parsed body (Status objects included). */
  raw(options: HttpOptions): Promise<RawResponse>;
  /** A watch stream of parsed events (the client's own JSON-lines decoding). */
  watch(options: HttpOptions): Promise<Readable>;
}

export interface RawResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Loose;
  readonly text: string;
}

export function independentClient(kubeconfigPath: string, context: string): IndependentClient {
  const { Client, KubeConfig } = require('kubernetes-client') as {
    Client: new (options: { backend: RequestBackend; version: string }) => { api: { v1: unknown } };
    KubeConfig: new () => KubeConfigLike;
  };
  const Request = require('kubernetes-client/backends/request') as new (options: {
    kubeconfig: KubeConfigLike;
  }) => RequestBackend;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(kubeconfigPath);
  kubeconfig.setCurrentContext(context);
  const backend = new Request({ kubeconfig });
  const client = new Client({ backend, version: '1.13' });
  return {
    v1: client.api.v1,
    backend,
    raw: (options) =>
      new Promise((resolve, reject) => {
        const body =
          options.body === undefined || typeof options.body === 'string'
            ? options.body
            : JSON.stringify(options.body);
        const headers = { 'Content-Type': 'application/json', ...options.headers };
        const stream = backend.http({ ...options, body, headers, json: false, stream: true });
        let text = '';
        let response: { statusCode: number; headers: RawResponse['headers'] } | undefined;
        stream.on('response', (r: { statusCode: number; headers: RawResponse['headers'] }) => (response = r));
        stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        stream.on('error', reject);
        stream.on('end', () => {
          let body: unknown = undefined;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ statusCode: response?.statusCode ?? 0, headers: response?.headers ?? {}, body, text });
        });
      }),
    watch: (options) => backend.getWatchObjectStream(options),
  };
}

/** Resolves with the first watch event that satisfies `predicate`. */
export function nextEvent(
  stream: Readable,
  predicate: (event: { type: string; object: Loose }) => boolean,
): Promise<{ type: string; object: Loose }> {
  return new Promise((resolve, reject) => {
    const onData = (event: { type: string; object: Loose }) => {
      if (!predicate(event)) return;
      stream.off('data', onData);
      resolve(event);
    };
    stream.on('data', onData);
    stream.once('error', reject);
    stream.once('end', () => reject(new Error('watch ended before the event came')));
  });
}
