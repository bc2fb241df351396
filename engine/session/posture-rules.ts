/**
 * Posture ceilings, scope constraints and model/effort routing for a start, a guide and a
 * set-posture (seed 004 §3, §10). Pure: the caller passes the descriptor and the constraints.
 *
 * The asymmetry is deliberate: an EXPLICIT request beyond a limit is rejected (an injected driver
 * must not learn the ceiling by silent trial), while an OMITTED value is clamped down to the
 * limit. maxRounds is a budget, not a privilege, so it is always clamped.
 */
import { narrowKnobs, type Backend, type Effort, type Posture } from '../definitions/index.js';
import { DEFAULT_MAX_POSTURE, POSTURES, underCeiling, type Ceiling } from '../posture/index.js';
import { didYouMean } from '../util/did-you-mean.js';
import { MODEL_CLASSES, type ScopeConstraints, type StartInput } from './contract.js';
import { SessionRejection } from './errors.js';

/** The round cap when neither the request, the config nor a scope sets one. */
export const DEFAULT_MAX_ROUNDS = 20;

/** Defaults a start falls back to (config `defaults`, then neo's own). */
export interface SessionDefaults {
  backend?: string;
  maxPosture?: Posture;
  maxRounds?: number;
  model?: string;
  effort?: Effort;
}

/** A start after every rule applied: what reaches the transport and the record. */
export interface ResolvedStart {
  backendId: string;
  descriptor: Backend;
  maxPosture: Posture;
  posture: Posture;
  maxRounds: number;
  allowedTools?: string[];
  /** The concrete model id (never a class sentinel), or absent to let the backend choose. */
  model?: string;
  effort?: Effort;
}

/** Looks a backend descriptor up by id. */
export interface BackendCatalog {
  ids(): string[];
  get(id: string): Backend | undefined;
}

/** Applies every start rule; throws a typed rejection naming the rule. */
export function resolveStart(
  input: StartInput,
  catalog: BackendCatalog,
  constraints: ScopeConstraints | undefined,
  defaults: SessionDefaults = {},
): ResolvedStart {
  const c = constraints ?? {};
  const backendId = resolveBackendId(input.backend, c.backend, defaults.backend, catalog);
  const descriptor = catalog.get(backendId)!;

  // The session ceiling: under a scope's ceiling (a persona's maxPosture, the owner policy's), by
  // the one ceiling rule; an unasked one falls back to the config's or neo's default, held down to it.
  const fallback = defaults.maxPosture ?? DEFAULT_MAX_POSTURE;
  const maxPosture =
    c.maxPosture === undefined
      ? (input.maxPosture ?? fallback)
      : withinCeiling(
          'maxPosture',
          input.maxPosture,
          {
            posture: c.maxPosture,
            name: "this scope's ceiling",
            hint: `ask for \`${c.maxPosture}\` or less, or omit maxPosture to get the scope's ceiling`,
          },
          fallback,
        );
  const posture = withinCeiling('initialPosture', input.initialPosture, {
    posture: maxPosture,
    name: 'the session ceiling',
    hint: `start at \`${maxPosture}\` or below`,
  });
  assertPostureExpressible(backendId, descriptor, posture);

  const { knobs } = narrowKnobs([
    { source: 'request', knobs: { maxRounds: input.maxRounds ?? defaults.maxRounds ?? DEFAULT_MAX_ROUNDS } },
    { source: 'scope', knobs: c.maxRounds === undefined ? {} : { maxRounds: c.maxRounds } },
  ]);
  const maxRounds = knobs.maxRounds!;

  const allowedTools = resolveAllowedTools(backendId, descriptor, input.allowedTools, c.allowedTools);
  const model =
    input.agentModel !== undefined
      ? resolveAgentModel(backendId, descriptor, input.agentModel)
      : softDefaultModel(descriptor, defaults.model);
  if (input.effort !== undefined) assertEffortSupported(backendId, descriptor, input.effort);
  const effort =
    input.effort ??
    (defaults.effort !== undefined && descriptor.effortSupport?.levels.includes(defaults.effort)
      ? defaults.effort
      : undefined);

  const resolved: ResolvedStart = { backendId, descriptor, maxPosture, posture, maxRounds };
  if (allowedTools !== undefined) resolved.allowedTools = allowedTools;
  if (model !== undefined) resolved.model = model;
  if (effort !== undefined) resolved.effort = effort;
  return resolved;
}

function resolveBackendId(
  requested: string | undefined,
  pin: string | undefined,
  fallback: string | undefined,
  catalog: BackendCatalog,
): string {
  if (requested !== undefined && pin !== undefined && requested !== pin) {
    throw new SessionRejection(
      'SESSION_BACKEND_PINNED',
      `backend \`${requested}\` differs from the backend \`${pin}\` this scope is pinned to`,
      {
        hint: `omit backend (it resolves to \`${pin}\`) or ask for \`${pin}\``,
      },
    );
  }
  const id = requested ?? pin ?? fallback ?? 'claude-code';
  if (catalog.get(id) === undefined) {
    const guess = didYouMean(id, catalog.ids());
    throw new SessionRejection('SESSION_UNKNOWN_BACKEND', `no backend descriptor \`${id}\``, {
      hint:
        guess !== undefined ? `did you mean \`${guess}\`?` : `known backends: ${catalog.ids().join(', ') || 'none'}`,
    });
  }
  return id;
}

function resolveAllowedTools(
  backendId: string,
  descriptor: Backend,
  explicit: string[] | undefined,
  constraint: string[] | undefined,
): string[] | undefined {
  if (explicit === undefined) return constraint === undefined ? undefined : [...constraint];
  if (!descriptor.honorsAllowedTools) {
    throw new SessionRejection(
      'SESSION_TOOLS_NOT_HONORED',
      `backend \`${backendId}\` does not enforce allowedTools, so an explicit list would be silently ignored`,
      {
        hint: 'omit allowedTools for this backend, or pick a backend that honours it',
      },
    );
  }
  if (constraint === undefined) return [...explicit];
  const allowed = new Set(constraint);
  const kept = explicit.filter((tool) => allowed.has(tool));
  if (kept.length === 0) {
    throw new SessionRejection(
      'SESSION_TOOLS_EMPTY',
      `none of allowedTools (${explicit.join(', ')}) is allowed in this scope`,
      {
        hint: `this scope allows: ${constraint.join(', ')}`,
      },
    );
  }
  return kept;
}

/** The one ceiling rule (engine/posture underCeiling): the posture, or a POSTURE_CEILING_EXCEEDED rejection. */
function withinCeiling(field: string, asked: Posture | undefined, ceiling: Ceiling, fallback?: Posture): Posture {
  const verdict = underCeiling(field, asked, ceiling, fallback);
  if (!verdict.ok) throw new SessionRejection(verdict.code, verdict.message, { hint: verdict.hint });
  return verdict.posture;
}

/** Fail closed: a posture the backend's postureMap cannot express is rejected. */
export function assertPostureExpressible(backendId: string, descriptor: Backend, posture: Posture): void {
  if (descriptor.postureMap[posture] !== undefined) return;
  const supported = POSTURES.filter((p) => descriptor.postureMap[p] !== undefined);
  throw new SessionRejection('POSTURE_UNSUPPORTED', `backend \`${backendId}\` cannot express posture \`${posture}\``, {
    hint: supported.length > 0 ? `it supports: ${supported.join(', ')}` : 'its descriptor maps no posture at all',
  });
}

/** set-posture: above the session ceiling is rejected, never clamped. */
export function checkSetPosture(backendId: string, descriptor: Backend, ceiling: Posture, requested: Posture): void {
  withinCeiling('posture', requested, {
    posture: ceiling,
    name: "this session's ceiling",
    hint: `the ceiling is fixed at start; ask for \`${ceiling}\` or less`,
  });
  assertPostureExpressible(backendId, descriptor, requested);
}

/**
 * A class sentinel resolved through the descriptor's modelClassMap (null or absent: let the
 * backend choose); a concrete id passes through unless the backend picks its own model.
 */
export function resolveAgentModel(backendId: string, descriptor: Backend, agentModel: string): string | undefined {
  if ((MODEL_CLASSES as readonly string[]).includes(agentModel)) {
    if (descriptor.modelSelection === 'none') return undefined;
    const mapped = descriptor.modelClassMap?.[agentModel as (typeof MODEL_CLASSES)[number]];
    return mapped ?? undefined;
  }
  if (descriptor.modelSelection === 'none') {
    throw new SessionRejection(
      'SESSION_MODEL_UNSUPPORTED',
      `backend \`${backendId}\` picks its own model; agentModel \`${agentModel}\` cannot be applied`,
      {
        hint: 'omit agentModel, or use a class sentinel (cheap, standard, frontier)',
      },
    );
  }
  return agentModel;
}

function softDefaultModel(descriptor: Backend, model: string | undefined): string | undefined {
  if (model === undefined || descriptor.modelSelection === 'none') return undefined;
  if ((MODEL_CLASSES as readonly string[]).includes(model))
    return descriptor.modelClassMap?.[model as (typeof MODEL_CLASSES)[number]] ?? undefined;
  return model;
}

/** An explicit effort the backend does not accept is rejected (absent effortSupport accepts none). */
export function assertEffortSupported(backendId: string, descriptor: Backend, effort: Effort): void {
  const levels = descriptor.effortSupport?.levels ?? [];
  if (levels.includes(effort)) return;
  throw new SessionRejection(
    'SESSION_EFFORT_UNSUPPORTED',
    `backend \`${backendId}\` does not accept effort \`${effort}\``,
    {
      hint: levels.length > 0 ? `it accepts: ${levels.join(', ')}` : 'it cannot set a reasoning effort; omit effort',
    },
  );
}

/** guide's model/effort switch: only for `modelSelection: per-turn` backends. */
export function resolveGuideSwitch(
  backendId: string,
  descriptor: Backend,
  request: { agentModel?: string; effort?: Effort },
): { model?: string; effort?: Effort } | undefined {
  if (request.agentModel === undefined && request.effort === undefined) return undefined;
  if (descriptor.modelSelection !== 'per-turn') {
    throw new SessionRejection(
      'SESSION_MODEL_SWITCH_UNSUPPORTED',
      `backend \`${backendId}\` cannot switch model or effort between turns (modelSelection: ${descriptor.modelSelection})`,
      {
        hint: 'set agentModel/effort at start instead',
      },
    );
  }
  const switchTo: { model?: string; effort?: Effort } = {};
  if (request.agentModel !== undefined) {
    const model = resolveAgentModel(backendId, descriptor, request.agentModel);
    if (model !== undefined) switchTo.model = model;
  }
  if (request.effort !== undefined) {
    assertEffortSupported(backendId, descriptor, request.effort);
    switchTo.effort = request.effort;
  }
  return switchTo;
}
