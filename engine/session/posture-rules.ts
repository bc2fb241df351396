/**
 * Posture ceilings and scope constraints for a start, a guide and a set-posture (seed 004 §3; the
 * model/effort rules they apply are engine/routing's). Pure: the caller passes the descriptor and the constraints.
 *
 * The asymmetry is deliberate: an EXPLICIT request beyond a limit is rejected (an injected driver
 * must not learn the ceiling by silent trial), while an OMITTED value is clamped down to the
 * limit. maxRounds is a budget, not a privilege, so it is always clamped.
 */
import { DEFAULT_MAX_ROUNDS, narrowKnobs, type Backend, type Effort, type Posture } from '../definitions/index.js';
import { DEFAULT_MAX_POSTURE, POSTURES, underCeiling, type Ceiling } from '../posture/index.js';
import { didYouMean } from '../util/did-you-mean.js';
import { assertEffortSupported, defaultAgentModel, resolveAgentModel } from '../routing/index.js';
import type { ScopeConstraints, StartInput } from './contract.js';
import { SessionRejection } from './errors.js';

export { DEFAULT_MAX_ROUNDS };

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
      : defaultAgentModel(descriptor, defaults.model);
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
