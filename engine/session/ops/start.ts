import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { narrowKnobs, policyKnobs, type Backend, type DefinitionSet } from '../../definitions/index.js';
import { postureWithin } from '../../posture/index.js';
import { durationMs } from '../../util/duration.js';
import type { StartSessionOptions } from '../../transports/index.js';
import { NeoError } from '../../util/errors.js';
import { environmentRedactor } from '../../util/redact.js';
import type { ScopeConstraints, StartInput, StartResult } from '../contract.js';
import { TurnDiffCapture } from '../diff/capture.js';
import { SessionFailure, SessionRejection, badInput } from '../errors.js';
import { mintSessionId } from '../ids.js';
import { LiveSession } from '../live-session.js';
import { METRICS } from '../metrics.js';
import { resolveStart, type BackendCatalog, type ResolvedStart, type SessionDefaults } from '../posture-rules.js';
import type { CodeSessionRecord } from '../store/record.js';
import type { OpContext } from './context.js';
import { provisionStep } from './provision-step.js';
import { acknowledgeProvision, removeProvisionDir } from '../../capabilities/index.js';
import { defined } from '../../util/defined.js';
import { distrustProject } from '../../util/own-programs.js';

/** Ten minutes without an agent event is a stall unless a config or the service says otherwise. */
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * Opens a session: every rule applied, the id minted and the first turn's diff baseline taken
 * BEFORE the transport starts, then the live handle registered (or, with an adopt pin, the old
 * record revived under its own id).
 */
export async function startSession(ctx: OpContext, input: StartInput): Promise<StartResult> {
  const scope = ctx.registry.scopeConstraints(ctx.caller.scope);
  const constraints = withOwnerPolicy(scope, ctx.definitions);
  // A scope's ceiling is also the ceiling of a start that asks for none: a persona's maxPosture
  // reaches its sessions through its scope alone, not repeated in each start.
  const defaults = { ...sessionDefaults(ctx.definitions), ...(scope?.maxPosture && { maxPosture: scope.maxPosture }) };
  let resolved = resolveStart(input, backendCatalog(ctx.definitions), constraints, defaults);

  const adoptId = constraints?.adoptRecordId;
  const record = adoptId === undefined ? undefined : await adoptableRecord(ctx, adoptId, resolved);
  if (record !== undefined && !postureWithin(resolved.maxPosture, record.maxPosture)) {
    // A resumed task keeps the ceiling it was started with.
    resolved = {
      ...resolved,
      maxPosture: record.maxPosture,
      posture: postureWithin(resolved.posture, record.maxPosture) ? resolved.posture : record.maxPosture,
    };
  }
  if (record?.maxRounds !== undefined && record.maxRounds < resolved.maxRounds) {
    // ...and its round budget: rounds already spent count against it (see roundsElapsed below).
    resolved = { ...resolved, maxRounds: record.maxRounds };
  }
  const cwd = await workingDirectory(input.cwd ?? record?.cwd ?? ctx.defaultCwd);
  // The session's project is written by its agent, whatever the transport (an in-process one too:
  // the script backend, neo's own agent): from here on this process never finds its own programs
  // there — the diff capture below runs git before any transport starts, and every turn after.
  distrustProject(cwd);

  const transport = await ctx.transports(resolved.backendId, ctx.definitions);
  if (transport === undefined) {
    throw new SessionFailure(
      'SESSION_BACKEND_UNSUPPORTED',
      `no transport adapter drives backend \`${resolved.backendId}\` (protocol ${resolved.descriptor.protocol})`,
      {
        hint: 'run `neo session list-backends` (or `neo backends list`) to see which backends this neo can drive',
      },
    );
  }

  const sessionId = adoptId ?? mintSessionId();
  const resumeSessionId = input.resumeSessionId ?? record?.runs.at(-1)?.externalSessionId;
  const capture = await TurnDiffCapture.open(cwd, {
    editToolNames: resolved.descriptor.editToolNames ?? [],
    home: ctx.registry.store.home,
    storeDir: join(ctx.registry.store.sessionDir(sessionId), 'snapshots'),
    ...defined({ baseline: ctx.baseline }),
  });
  const options: StartSessionOptions = {
    sessionId,
    cwd,
    brief: input.brief,
    posture: resolved.posture,
    descriptor: resolved.descriptor,
    sessionDir: ctx.registry.store.sessionDir(sessionId),
  };
  if (resolved.model !== undefined) options.model = resolved.model;
  if (resolved.effort !== undefined) options.effort = resolved.effort;
  if (resolved.allowedTools !== undefined) options.allowedTools = resolved.allowedTools;
  if (input.appendSystemPrompt !== undefined) options.appendSystemPrompt = input.appendSystemPrompt;
  if (resumeSessionId !== undefined) options.resumeSessionId = resumeSessionId;
  if (input.backendOptions !== undefined) options.options = input.backendOptions;
  if (ctx.env !== undefined) options.env = ctx.env;
  if (input.sandbox !== undefined) options.sandbox = input.sandbox;
  const provisioned =
    input.cwd === undefined
      ? undefined
      : await provisionStep({
          home: ctx.registry.store.home,
          cwd,
          definitions: ctx.definitions,
          descriptor: resolved.descriptor,
          sessionId,
          sessionDir: options.sessionDir!,
          env: ctx.env ?? process.env,
          ...defined({ sandbox: input.sandbox, profile: ctx.projectProfile }),
        });
  if (provisioned?.plan !== undefined) options.provision = provisioned.plan;
  // Servers the start names itself (`--mcp-config`) join the curated ones, and win a name both have.
  if (input.mcpServers !== undefined) {
    const { mcpConfigFile: _curatedFile, curatedMcp, ...plan } = options.provision ?? {};
    // A name the start takes over is its server now, not the catalog's.
    const stillCurated = Object.entries(curatedMcp ?? {}).filter(([name]) => input.mcpServers![name] === undefined);
    options.provision = {
      ...plan,
      mcpServers: { ...plan.mcpServers, ...input.mcpServers },
      ...(stillCurated.length > 0 ? { curatedMcp: Object.fromEntries(stillCurated) } : {}),
    };
  }

  let agent;
  try {
    agent = await transport.start(options);
  } catch (error) {
    await removeProvisionDir(options.sessionDir!).catch(() => undefined);
    // A transport's own typed error (a missing script, a missing binary) already says what to fix.
    if (error instanceof NeoError) throw error;
    throw new SessionFailure(
      'SESSION_START_FAILED',
      `backend \`${resolved.backendId}\` did not start: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  // The brief goes to the agent as written (the caller asked for it); what is kept is redacted.
  const redact = environmentRedactor(ctx.env ?? process.env);
  const session = new LiveSession({
    sessionId,
    ownerScope: ctx.caller.scope,
    backendId: resolved.backendId,
    descriptor: resolved.descriptor,
    cwd,
    agent,
    capture,
    posture: resolved.posture,
    maxPosture: resolved.maxPosture,
    maxRounds: resolved.maxRounds,
    roundsElapsed: record?.roundsElapsed ?? 0,
    idleTimeoutMs: ctx.idleTimeoutMs ?? configIdleTimeout(ctx.definitions) ?? DEFAULT_IDLE_TIMEOUT_MS,
    clock: ctx.clock,
    hooks: ctx.registry.hooks,
    log: ctx.log,
    redact,
  });
  try {
    if (adoptId !== undefined) {
      await ctx.registry.adopt(session, resumeSessionId === undefined ? {} : { resumeSessionId });
      ctx.registry.clearAdoptConstraint(ctx.caller.scope);
    } else {
      const info = {
        brief: redact(input.brief),
        taskTags: input.taskTags ?? [],
        ...defined({ model: resolved.model, effort: resolved.effort, provision: provisioned?.meta }),
      };
      await ctx.registry.create(session, info);
    }
    // A resumed record is patched without holding the start: the agent's first turn is already
    // streaming, and every await here delays the step's watch (a budget crossed mid-turn).
    if (adoptId !== undefined && provisioned !== undefined)
      void ctx.registry.store
        .patchMeta(sessionId, () => ({
          // The transport may have reported already (registry's `provisioned` hook): its word stands.
          provision:
            session.provisionReport === undefined
              ? provisioned.meta
              : acknowledgeProvision(provisioned.meta, session.provisionReport),
        }))
        .catch((error: unknown) => ctx.log.warn('code_session_provision_record_failed', { sessionId, error }));
  } catch (error) {
    session.abandon();
    await agent.stop().catch(() => undefined);
    throw error;
  }
  ctx.metrics.increment(METRICS.started, { backend: resolved.backendId });
  return {
    sessionId,
    backend: resolved.backendId,
    posture: resolved.posture,
    maxPosture: resolved.maxPosture,
    maxRounds: resolved.maxRounds,
  };
}

async function adoptableRecord(ctx: OpContext, recordId: string, resolved: ResolvedStart): Promise<CodeSessionRecord> {
  if (ctx.registry.find(recordId) !== undefined) {
    throw new SessionRejection(
      'SESSION_ALREADY_LIVE',
      `code session \`${recordId}\` is still live; it cannot be adopted`,
      { hint: 'stop it first, or keep driving it' },
    );
  }
  const record = await ctx.registry.store.get(recordId);
  if (record === null)
    throw new SessionRejection('SESSION_ADOPT_NOT_FOUND', `no code session record \`${recordId}\` to adopt`);
  if (record.backendId !== resolved.backendId) {
    throw new SessionRejection(
      'SESSION_BACKEND_PINNED',
      `record \`${recordId}\` ran on backend \`${record.backendId}\`, not \`${resolved.backendId}\``,
      { hint: `adopt it with backend \`${record.backendId}\`` },
    );
  }
  return record;
}

async function workingDirectory(path: string): Promise<string> {
  const absolute = resolve(path);
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) throw badInput('cwd', `not a directory: ${absolute}`);
  return absolute;
}

/**
 * The scope's constraints narrowed by the owner policy (`NEO_HOME/policy.yaml`), which caps
 * every session whoever starts it. Reading it throws when the file is invalid: no session
 * starts uncapped.
 */
function withOwnerPolicy(scope: ScopeConstraints | undefined, set: DefinitionSet): ScopeConstraints | undefined {
  const owner = set.ownerPolicy;
  if (owner === undefined) return scope;
  const { adoptRecordId, ...knobs } = scope ?? {};
  const narrowed = narrowKnobs([
    { source: 'this scope', knobs },
    { source: `the owner policy (${owner.file})`, knobs: policyKnobs(owner) },
  ]);
  const conflict = narrowed.conflicts[0];
  if (conflict !== undefined)
    throw new SessionRejection('SESSION_OWNER_POLICY_CONFLICT', conflict.message, {
      hint: `the owner policy caps every session; change the request or ${owner.file}`,
    });
  const n = narrowed.knobs;
  return defined({
    maxPosture: n.maxPosture,
    backend: n.backend,
    maxRounds: n.maxRounds,
    allowedTools: n.allowedTools,
    adoptRecordId,
  });
}

/** Backend descriptors of a definition set, with their ids filled in. */
export function backendCatalog(set: DefinitionSet): BackendCatalog {
  return {
    ids: () => set.ids('backend'),
    get: (id) => {
      const definition = set.get('backend', id);
      return definition === undefined ? undefined : ({ ...definition.data, id: definition.id } satisfies Backend);
    },
  };
}

/** Session defaults from neo.yaml files, later (project) layers over earlier (user) ones. */
export function sessionDefaults(set: DefinitionSet): SessionDefaults {
  const defaults: SessionDefaults = {};
  for (const config of set.configs) {
    const d = config.data.defaults;
    if (d === undefined) continue;
    if (d.backend !== undefined) defaults.backend = d.backend;
    if (d.maxPosture !== undefined) defaults.maxPosture = d.maxPosture;
    if (d.maxRounds !== undefined) defaults.maxRounds = d.maxRounds;
    if (d.model !== undefined) defaults.model = d.model;
    if (d.effort !== undefined) defaults.effort = d.effort;
  }
  return defaults;
}

function configIdleTimeout(set: DefinitionSet): number | undefined {
  let value: number | undefined;
  for (const config of set.configs) {
    const raw = config.data.defaults?.idleTimeout;
    if (raw !== undefined && Number.isFinite(durationMs(raw))) value = durationMs(raw);
  }
  return value;
}
