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
  /** The supervisor's budgets for child agents (the task tool). */
  readonly subagents: SubagentBudgets;
  /** The context pruner; absent when disabled. */
  readonly pruner?: PrunerSettings;
  /** Every secret that was expanded, for redaction and for scrubbing child environments. */
  readonly secrets: readonly Secret[];
  /** The neo.yaml and .env files that were read. */
  readonly files: readonly string[];
  /** Things ignored on purpose (an untrusted project's provider), one line each. */
  readonly warnings: readonly string[];
}

export interface SubagentBudgets {
  /** Model calls per child. */
  readonly maxTurns: number;
  /** Tokens of all children of one session together. */
  readonly maxTokens: number;
  /** USD of all children together (counted only where the backend is priced). */
  readonly maxCostUsd?: number;
  /** Wall time per child. */
  readonly maxWallMs: number;
  /** 1: children cannot start children. */
  readonly maxDepth: number;
  /** Children one task call may start. */
  readonly maxFanOut: number;
}

export interface PrunerSettings {
  readonly keepRecent: number;
  readonly minChars: number;
}

export const SUBAGENT_DEFAULTS: SubagentBudgets = {
  maxTurns: 20,
  maxTokens: 1_000_000,
  maxWallMs: 10 * 60_000,
  maxDepth: 1,
  maxFanOut: 4,
};

export const PRUNER_DEFAULTS: PrunerSettings = { keepRecent: 6, minChars: 400 };

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
