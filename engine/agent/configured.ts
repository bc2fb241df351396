/**
 * An agent built from neo.yaml: settings loaded and frozen, the provider and compactor made from
 * them. The `neo` backend builds its sessions this way, and so does the llm decider.
 */
import type { Backend, Effort } from '../definitions/index.js';
import { SummarizingCompactor } from './compaction/summarizing.js';
import { DEFAULT_RETRY, type RetryHooks } from './http/retry.js';
import { Agent, type AgentOptions } from './loop.js';
import { createProvider } from './providers/index.js';
import type { Provider } from './providers/provider.js';
import { secretRedactor } from './redact.js';
import type { AgentSettings } from './settings/agent-settings.js';
import { resolveModel } from './settings/resolve-model.js';
import { defined } from '../util/defined.js';
import type { SecretValue } from '../util/redact.js';

/** The provider the settings describe. */
export function providerFromSettings(settings: AgentSettings, hooks?: RetryHooks): Provider {
  const p = settings.provider;
  return createProvider({
    name: p.name,
    api: p.api,
    baseUrl: p.baseUrl,
    ...defined({ apiKey: p.apiKey, credentialEnv: p.credentialEnv }),
    headers: p.headers,
    headersTimeoutMs: settings.headersTimeoutMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    retry: { ...DEFAULT_RETRY, maxRetries: settings.maxRetries },
    ...defined({ hooks }),
  });
}

export interface ConfiguredAgentOptions extends Omit<
  AgentOptions,
  'provider' | 'model' | 'compactor' | 'maxTurns' | 'maxOutputTokens' | 'toolOutputMaxBytes' | 'redact'
> {
  settings: AgentSettings;
  /** A model id or class sentinel; default agent.model, else the standard class. */
  model?: string;
  effort?: Effort;
  /** The neo backend's descriptor, for class sentinels. */
  descriptor?: Pick<Backend, 'modelClassMap'>;
  /** Replaces the HTTP provider (tests, a fake). */
  provider?: Provider;
  retryHooks?: RetryHooks;
  /** The environment the agent runs with: its secrets are redacted too (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Further values to redact from the transcript (what an MCP server's env references read). */
  extraSecrets?: readonly SecretValue[];
}

/** An {@link Agent} wired from frozen settings. */
export function createConfiguredAgent(options: ConfiguredAgentOptions): Agent {
  const { settings, descriptor, retryHooks, provider: given, model: requested, env, extraSecrets, ...rest } = options;
  const provider = given ?? providerFromSettings(settings, retryHooks);
  return new Agent({
    ...rest,
    provider,
    model: resolveModel(requested, settings, descriptor),
    maxTurns: settings.maxTurns,
    maxOutputTokens: settings.maxOutputTokens,
    toolOutputMaxBytes: settings.toolOutputMaxBytes,
    compactor: new SummarizingCompactor({
      provider,
      thresholdTokens: settings.compactAtTokens,
      keepTurns: settings.keepTurns,
    }),
    redact: secretRedactor(settings.secrets, env, extraSecrets),
  });
}
