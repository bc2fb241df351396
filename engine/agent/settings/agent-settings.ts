/** The agent's settings, resolved and frozen: nothing re-reads configuration after construction. */
import type { ModelClass } from '../../definitions/index.js';
import type { ProviderApi } from '../messages.js';
import type { Secret } from './secret.js';

export interface ProviderSettings {
  /** The name it has in neo.yaml (or a built-in name). */
  readonly name: string;
  readonly api: ProviderApi;
  readonly baseUrl: string;
  readonly apiKey?: Secret;
  /** The variable a 401/403 should point at. */
  readonly credentialEnv?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Class sentinel → model id for this provider. */
  readonly models: Readonly<Partial<Record<ModelClass, string>>>;
}

export interface AgentSettings {
  readonly provider: ProviderSettings;
  /** A model id or class sentinel from neo.yaml (`agent.model`). */
  readonly model?: string;
  readonly maxTurns: number;
  readonly idleTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly maxRetries: number;
  readonly compactAtTokens: number;
  readonly keepTurns: number;
  readonly toolOutputMaxBytes: number;
  readonly maxOutputTokens: number;
  readonly execTimeoutMs: number;
  /** Every secret that was expanded, for redaction and for scrubbing child environments. */
  readonly secrets: readonly Secret[];
  /** The neo.yaml and .env files that were read. */
  readonly files: readonly string[];
  /** Things ignored on purpose (an untrusted project's provider), one line each. */
  readonly warnings: readonly string[];
}

export const SETTING_DEFAULTS = {
  maxTurns: 50,
  idleTimeoutMs: 3 * 60_000,
  headersTimeoutMs: 10 * 60_000,
  maxRetries: 4,
  compactAtTokens: 120_000,
  keepTurns: 4,
  toolOutputMaxBytes: 32 * 1024,
  maxOutputTokens: 8192,
  execTimeoutMs: 2 * 60_000,
} as const;

/** Deep-freezes plain objects and arrays (Secrets are already frozen). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
