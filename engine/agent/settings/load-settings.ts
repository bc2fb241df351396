/**
 * Loads the agent's settings: neo.yaml from NEO_HOME (user) and <repo>/.neo (project), the
 * project layer winning per key; `.env` files beside them; secrets expanded from `${NAME}`
 * references (environment first, then the project's .env, then the user's). The result is frozen.
 *
 * A flow hands in the neo.yaml layers and the `.env` files it read when its run started
 * (`configs`, `dotenv`): a session is started in the middle of the run, when a confined step may
 * have written the project's `.neo/` (in `inplace` isolation the workspace is the checkout).
 * Without them (a session started by hand, through the daemon) they are read now.
 *
 * An untrusted project sets no provider's URL, key or headers and its .env is not read: the
 * definitions loader drops those fields (privileged.ts) with a warning until the owner runs
 * `neo trust`, so a cloned repository cannot send the user's key, or the user's code, anywhere.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  findRepoRoot,
  formatDiagnostics,
  loadDefinitionFile,
  TrustStore,
  type Config,
  type Definition,
} from '../../definitions/index.js';
import { durationMs } from '../../util/duration.js';
import { neoHome } from '../../util/neo-home.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { AgentError } from '../errors.js';
import {
  deepFreeze,
  PRUNER_DEFAULTS,
  SETTING_DEFAULTS,
  SUBAGENT_DEFAULTS,
  type AgentSettings,
  type ProviderSettings,
  type SubagentBudgets,
} from './agent-settings.js';
import { BUILTIN_PROVIDERS, DEFAULT_BASE_URL, DEFAULT_PROVIDER_ORDER } from './builtin-providers.js';
import { readDotenvLayers, type DotenvLayers } from './dotenv-layers.js';
import { expandReferences, referencedNames, secretReference, type EnvLookup } from './expand.js';
import type { Secret } from './secret.js';
import { defined } from '../../util/defined.js';

type ProviderConfig = NonNullable<Config['providers']>[string];

export interface LoadSettingsOptions {
  /** The working directory; its repository root holds the project layer. */
  cwd: string;
  /** NEO_HOME (default: from env). */
  home?: string;
  /** The environment secrets are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** neo.yaml definitions already loaded (DefinitionSet.configs); read from disk when absent. */
  configs?: readonly Definition<'config'>[];
  /** The `.env` files already read (with `configs`, at a run's start); read from disk when absent. */
  dotenv?: DotenvLayers;
  /** Overrides `agent.provider`. */
  provider?: string;
  /** Leave out the project layer. */
  noProject?: boolean;
}

/** Reads, merges, expands and freezes. Throws an {@link AgentError} naming the problem. */
export async function loadAgentSettings(options: LoadSettingsOptions): Promise<AgentSettings> {
  const env = options.env ?? process.env;
  const home = options.home ?? neoHome(env);
  const layers = options.configs ?? (await readConfigs(home, options.noProject ? undefined : options.cwd));
  const files = layers.map((l) => l.file);
  const dotenv =
    options.dotenv ??
    (await readDotenvLayers({ cwd: options.cwd, home, ...(options.noProject ? { noProject: true } : {}) }));
  const lookup: EnvLookup = (name) => env[name] ?? dotenv.project?.get(name) ?? dotenv.user.get(name);
  files.push(...dotenv.files);

  const warnings: string[] = [...dotenv.warnings];
  const agent: NonNullable<Config['agent']> = {};
  const providers: Record<string, ProviderConfig> = {};
  for (const layer of layers) {
    Object.assign(agent, layer.data.agent ?? {});
    for (const [name, config] of Object.entries(layer.data.providers ?? {}))
      providers[name] = { ...providers[name], ...config };
    for (const field of layer.ignoredFields)
      warnings.push(
        layer.untrustedBecause === undefined
          ? `${layer.file}: ${field} is ignored: this project is not trusted (run \`neo trust\` to allow it)`
          : `${layer.file}: ${field} is ignored: ${layer.untrustedBecause}`,
      );
  }

  const secrets: Secret[] = [];
  const name = options.provider ?? agent.provider ?? defaultProvider(providers, lookup);
  const provider = resolveProvider(name, providers, lookup, secrets);
  const settings: AgentSettings = {
    provider,
    ...defined({ model: agent.model }),
    maxTurns: agent.maxTurns ?? SETTING_DEFAULTS.maxTurns,
    idleTimeoutMs: duration(agent.idleTimeout, SETTING_DEFAULTS.idleTimeoutMs, 'agent.idleTimeout'),
    headersTimeoutMs: duration(agent.headersTimeout, SETTING_DEFAULTS.headersTimeoutMs, 'agent.headersTimeout'),
    maxRetries: agent.maxRetries ?? SETTING_DEFAULTS.maxRetries,
    compactAtTokens: agent.compactAtTokens ?? SETTING_DEFAULTS.compactAtTokens,
    keepTurns: agent.keepTurns ?? SETTING_DEFAULTS.keepTurns,
    toolOutputMaxBytes: agent.toolOutputMaxBytes ?? SETTING_DEFAULTS.toolOutputMaxBytes,
    maxOutputTokens: agent.maxOutputTokens ?? SETTING_DEFAULTS.maxOutputTokens,
    execTimeoutMs: duration(agent.execTimeout, SETTING_DEFAULTS.execTimeoutMs, 'agent.execTimeout'),
    subagents: subagentBudgets(agent.subagents),
    ...(agent.pruner?.enabled === false
      ? {}
      : {
          pruner: {
            keepRecent: agent.pruner?.keepRecent ?? PRUNER_DEFAULTS.keepRecent,
            minChars: agent.pruner?.minChars ?? PRUNER_DEFAULTS.minChars,
          },
        }),
    secrets,
    files,
    warnings,
  };
  return deepFreeze(settings);
}

function subagentBudgets(given: NonNullable<Config['agent']>['subagents']): SubagentBudgets {
  const d = SUBAGENT_DEFAULTS;
  return {
    maxTurns: given?.maxTurns ?? d.maxTurns,
    maxTokens: given?.maxTokens ?? d.maxTokens,
    ...defined({ maxCostUsd: given?.maxCostUsd }),
    maxWallMs: duration(given?.maxWallTime, d.maxWallMs, 'agent.subagents.maxWallTime'),
    maxDepth: given?.maxDepth ?? d.maxDepth,
    maxFanOut: given?.maxFanOut ?? d.maxFanOut,
  };
}

/** neo.yaml from NEO_HOME and from the repository `cwd` is in (none: no project layer). */
async function readConfigs(home: string, cwd: string | undefined): Promise<Definition<'config'>[]> {
  const repo = cwd === undefined ? undefined : findRepoRoot(cwd, { exclude: home });
  // The same per-file rule as the definitions loader: privileged fields apply when pinned.
  const projectTrust = repo === undefined ? undefined : await new TrustStore(home).projectTrust(repo);
  const candidates: Array<{ file: string; layer: 'user' | 'project' }> = [
    { file: join(home, 'neo.yaml'), layer: 'user' },
  ];
  if (repo !== undefined) candidates.push({ file: join(repo, '.neo', 'neo.yaml'), layer: 'project' });
  const out: Definition<'config'>[] = [];
  for (const { file, layer } of candidates) {
    if (!(await exists(file))) continue;
    const load = await loadDefinitionFile(file, {
      kind: 'config',
      layer,
      trusted: layer === 'user' || (projectTrust ?? false),
    });
    const errors = load.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      throw new AgentError('AGENT_SETTINGS_INVALID', `invalid ${file}:\n${formatDiagnostics(errors)}`, {
        hint: 'fix the file, or check it with `neo validate`',
      });
    }
    if (load.definition?.kind === 'config') out.push(load.definition);
  }
  return out;
}

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The provider when neo.yaml names none: the only one configured, else the first built-in whose key is set. */
function defaultProvider(providers: Record<string, ProviderConfig>, lookup: EnvLookup): string {
  const configured = Object.keys(providers);
  if (configured.length === 1) return configured[0]!;
  if (configured.length > 1) {
    throw new AgentError(
      'AGENT_NO_PROVIDER',
      `neo.yaml configures several providers (${configured.join(', ')}) and agent.provider picks none`,
      { hint: 'set agent.provider in neo.yaml' },
    );
  }
  for (const name of DEFAULT_PROVIDER_ORDER) {
    const key = BUILTIN_PROVIDERS[name]?.apiKey;
    const env = key !== undefined ? referencedNames(key)[0] : undefined;
    if (env !== undefined && lookup(env)) return name;
  }
  throw new AgentError('AGENT_NO_PROVIDER', 'no model provider is configured for the neo agent', {
    hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENROUTER_API_KEY, or add providers: and agent.provider to NEO_HOME/neo.yaml (see docs/agent.md)',
  });
}

function resolveProvider(
  name: string,
  providers: Record<string, ProviderConfig>,
  lookup: EnvLookup,
  secrets: Secret[],
): ProviderSettings {
  const builtin = BUILTIN_PROVIDERS[name];
  const configured = providers[name];
  if (builtin === undefined && configured === undefined) {
    const known = [...new Set([...Object.keys(providers), ...Object.keys(BUILTIN_PROVIDERS)])];
    const near = didYouMean(name, known);
    throw new AgentError('AGENT_UNKNOWN_PROVIDER', `unknown provider "${name}"`, {
      hint: near !== undefined ? `did you mean "${near}"?` : `known providers: ${known.join(', ')}`,
    });
  }
  // A configured entry replaces the built-in's API-dependent fields as a whole.
  const merged: ProviderConfig =
    configured !== undefined && builtin !== undefined && configured.api !== builtin.api
      ? configured
      : ({ ...builtin, ...configured } as ProviderConfig);
  const where = `providers.${name}`;
  const apiKey =
    merged.apiKey !== undefined ? secretReference(merged.apiKey, lookup, `${where}.apiKey`, secrets) : undefined;
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(merged.headers ?? {}))
    headers[header] = expandReferences(value, lookup, `${where}.headers.${header}`, secrets);
  const models: ProviderSettings['models'] = { ...merged.models };
  return {
    name,
    api: merged.api,
    baseUrl: merged.baseUrl ?? DEFAULT_BASE_URL[merged.api],
    ...(apiKey !== undefined ? { apiKey, credentialEnv: apiKey.name } : {}),
    headers,
    models,
  };
}

function duration(value: number | string | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  const ms = durationMs(value);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new AgentError('AGENT_SETTINGS_INVALID', `${field} is not a duration: ${String(value)}`, {
      hint: 'write seconds (90) or a string with a unit (90s, 3m)',
    });
  return ms;
}
