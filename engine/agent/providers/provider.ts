/**
 * The provider seam: one method that sends a request and returns the whole response, streaming
 * deltas to a sink on the way. The agent loop knows nothing else about a model; tests swap in a
 * fake that implements this interface.
 */
import type { ModelRequest, ModelResponse, ProviderApi, StreamSink } from '../messages.js';
import type { RetryHooks, RetryPolicy } from '../http/retry.js';
import type { Secret } from '../settings/secret.js';

export interface CompleteOptions {
  signal?: AbortSignal;
  sink?: StreamSink;
}

/** A model API. */
export interface Provider {
  /** The configured provider name (`anthropic`, `openrouter`, `ollama`), used in error lines. */
  readonly name: string;
  readonly api: ProviderApi;
  complete(request: ModelRequest, options?: CompleteOptions): Promise<ModelResponse>;
}

/** Everything an HTTP provider adapter needs; frozen settings build it. */
export interface HttpProviderConfig {
  name: string;
  api: ProviderApi;
  baseUrl: string;
  apiKey?: Secret;
  /** The environment variable an auth failure should point at. */
  credentialEnv?: string;
  /** Extra headers (already expanded). */
  headers: Readonly<Record<string, string>>;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  retry: RetryPolicy;
  hooks?: RetryHooks;
}
