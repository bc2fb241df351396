import type { Flow, Posture, SessionKnobs, Step } from '../../definitions/index.js';
import type { CompileOptions, CompileProblem } from './compile-types.js';
import { optionalDurationMs } from '../../util/duration.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from './command-limits.js';
import { toList } from '../../util/string-list.js';
import type { KnobLayer, PlanLookup } from './lookup.js';
import type { AgentSettings, GateSpec } from './plan.js';
import {
  DEFAULT_MAX_POSTURE,
  PROTECT_PRESET_NAMES,
  effortWithin,
  expandProtect,
  underCeiling,
} from '../../posture/index.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { stepVerify } from './step-verify.js';
import { defined } from '../../util/defined.js';

/**
 * An agent step's effective settings. Knobs narrow from the flow's defaults through its policy,
 * the persona (its policy, then its frontmatter), the step's policy and the step itself, capped
 * by the owner policy. A step asking for more than a wider layer allows is refused, not clamped.
 */
export function compileAgent(
  flow: Flow,
  step: Step,
  lookup: PlanLookup,
  options: CompileOptions,
  problems: CompileProblem[],
): AgentSettings {
  const defaults = flow.defaults ?? {};
  const problem = (code: string, message: string, hint?: string) =>
    problems.push({ code, message, step: step.id, ...defined({ hint }) });
  const layers: KnobLayer[] = [];
  const flowKnobs: SessionKnobs = { maxPosture: defaults.maxPosture ?? DEFAULT_MAX_POSTURE };
  if (defaults.maxRounds !== undefined) flowKnobs.maxRounds = defaults.maxRounds;
  layers.push({ source: 'flow defaults', knobs: flowKnobs });
  pushPolicy(layers, lookup, defaults.policy, 'defaults.policy');

  const persona = step.persona === undefined ? undefined : lookup.persona(step.persona);
  if (persona !== undefined) layers.push(...persona.layers);
  pushPolicy(layers, lookup, step.policy, `step ${step.id} policy`);

  const stepSource = `step ${step.id}`;
  const stepKnobs: SessionKnobs = {};
  const stepCeiling = step.maxPosture ?? step.posture;
  if (stepCeiling !== undefined) stepKnobs.maxPosture = stepCeiling;
  if (step.maxRounds !== undefined) stepKnobs.maxRounds = step.maxRounds;
  if (step.backend !== undefined && options.backendOverride === undefined) stepKnobs.backend = step.backend;
  const stepTools = toList(step.allowedTools);
  if (stepTools !== undefined) stepKnobs.allowedTools = stepTools;
  layers.push({ source: stepSource, knobs: stepKnobs });
  if (lookup.owner !== undefined) layers.push(lookup.owner);

  // A persona's or policy's backend pin yields to an explicit --backend.
  const narrowed = lookup.narrow(
    options.backendOverride === undefined
      ? layers
      : layers.map((l) => ({ source: l.source, knobs: withoutBackend(l.knobs) })),
  );
  for (const conflict of narrowed.conflicts)
    problem('FLOW_KNOB_CONFLICT', conflict.message, 'make the pins agree, or drop one of them');
  for (const wide of narrowed.widened) {
    if (wide.source !== stepSource) continue;
    problem(
      'FLOW_STEP_WIDENS',
      `step \`${step.id}\` asks ${wide.knob} ${String(wide.value)}, above the ${String(wide.kept)} a wider layer (${narrowed.provenance[wide.knob] ?? 'the flow'}) allows`,
      'a step may only narrow the flow, its policy and its persona',
    );
  }
  const knobs = narrowed.knobs;
  const maxPosture: Posture = knobs.maxPosture ?? DEFAULT_MAX_POSTURE;
  const initialPosture = pickInitialPosture(step, persona?.layers ?? [], defaults.posture, maxPosture, problem);

  const effort = step.effort ?? defaults.effort;
  if (step.effort !== undefined && defaults.effort !== undefined && !effortWithin(step.effort, defaults.effort)) {
    problem(
      'FLOW_STEP_WIDENS',
      `step \`${step.id}\` asks effort ${step.effort}, above the flow's ${defaults.effort}`,
      'a step may only narrow the flow',
    );
  }

  const backend = options.backendOverride ?? knobs.backend ?? defaults.backend;
  const info = backend === undefined ? undefined : lookup.backend(backend);
  if (backend === undefined && options.requireBackend) {
    problem(
      'FLOW_NO_BACKEND',
      `agent step \`${step.id}\` has no backend`,
      "set `defaults.backend` or the step's `backend`, or pass `--backend <id>` (e.g. --backend script)",
    );
  }
  let allowedTools = knobs.allowedTools;
  let unenforcedTools: string[] | undefined;
  if (info !== undefined && !info.honorsAllowedTools && allowedTools !== undefined) {
    if (stepTools !== undefined) {
      problem(
        'FLOW_TOOLS_UNENFORCEABLE',
        `step \`${step.id}\` limits allowedTools but backend \`${info.id}\` cannot enforce a tool list`,
        'drop `allowedTools` or pick a backend that honours it; the posture still applies',
      );
    }
    unenforcedTools = allowedTools;
    allowedTools = undefined;
  }

  const model = step.model ?? persona?.model ?? defaults.model;
  const settings: AgentSettings = {
    brief: step.brief ?? '',
    ...defined({ persona: step.persona, backend, model, effort }),
    maxPosture,
    initialPosture,
    ...defined({ maxRounds: knobs.maxRounds, allowedTools, unenforcedTools }),
    ...(persona !== undefined && !persona.driver && persona.instructions !== ''
      ? { appendSystemPrompt: persona.instructions }
      : {}),
    // `script:` is for the script backend; with `--backend claude-code` the same plan runs a real agent.
    ...(step.script === undefined || (info !== undefined && info.protocol !== 'script')
      ? {}
      : { script: lookup.resolve(step.script) }),
    taskTags: [...new Set([...(persona?.taskTags ?? []), ...(step.taskTags ?? [])])],
    ...gateOf(stepVerify(step, lookup)),
    requireChange: step.requireChange ?? true,
    ...(info?.inProcess === true ? { inProcess: true } : {}),
    ...(step.lessons === true ? { lessons: true } : {}),
    ...memoryOf(step.memory),
    ...(step.outputSchema === undefined ? {} : { outputSchema: step.outputSchema as Record<string, unknown> }),
    allowCommands: [...(toList(defaults.allowCommands) ?? []), ...(toList(step.allowCommands) ?? [])],
    ...defined({ denyRules: persona?.denyRules }),
    editToolNames: info?.editToolNames ?? [],
    ...protectOf(persona?.protect, toList(step.protect), step.allowProtectedEdits, problem),
    ...(info?.protocol === 'script' ? { simulated: true as const } : {}),
    provenance: provenanceOf(
      narrowed.provenance,
      options.backendOverride !== undefined
        ? '--backend'
        : knobs.backend !== undefined
          ? narrowed.provenance.backend
          : defaults.backend !== undefined
            ? 'flow defaults'
            : undefined,
    ),
  };
  return settings;
}

/**
 * The step's starting posture through the one ceiling rule (engine/posture `underCeiling`): the step's own
 * `posture` is a request, refused above the ceiling; unasked, the persona's or the flow's default (else the
 * ceiling) is held down to it (seed 004 §3: defaults clamp, requests reject).
 */
function pickInitialPosture(
  step: Step,
  personaLayers: readonly KnobLayer[],
  flowDefault: Posture | undefined,
  ceiling: Posture,
  problem: (code: string, message: string, hint?: string) => void,
): Posture {
  const fromPersona = [...personaLayers].reverse().find((l) => l.knobs.initialPosture !== undefined)
    ?.knobs.initialPosture;
  const verdict = underCeiling(
    'posture',
    step.posture,
    { posture: ceiling, name: 'its ceiling', hint: 'lower `posture` or raise the ceiling where it is set' },
    fromPersona ?? flowDefault ?? ceiling,
  );
  if (verdict.ok) return verdict.posture;
  problem('FLOW_STEP_WIDENS', `step \`${step.id}\`: ${verdict.message}`, verdict.hint);
  return step.posture!;
}

function gateOf(verify: Step['verify']): { verify?: GateSpec } {
  return verify === undefined ? {} : { verify: compileGate(verify) };
}

function compileGate(verify: NonNullable<Step['verify']>): GateSpec {
  if (typeof verify === 'string')
    return { run: verify, attempts: 1, flakeCheck: false, baseline: false, timeoutMs: DEFAULT_COMMAND_TIMEOUT_MS };
  return {
    run: verify.run,
    attempts: verify.attempts ?? 1,
    flakeCheck: verify.flakeCheck === true,
    baseline: verify.baseline === true,
    timeoutMs: optionalDurationMs(verify.timeout) ?? DEFAULT_COMMAND_TIMEOUT_MS,
  };
}

/**
 * The step's protected globs: its persona's and its own, each `@preset` expanded (what
 * `--dry-run` shows). An unknown preset is a problem here too, for a plan that skipped
 * validation (definitions report it located, with the nearest name).
 */
function protectOf(
  persona: readonly string[] | undefined,
  own: readonly string[] | undefined,
  allow: boolean | undefined,
  problem: (code: string, message: string, hint?: string) => void,
): Pick<AgentSettings, 'protect' | 'allowProtectedEdits'> {
  const { globs, unknown } = expandProtect([...(persona ?? []), ...(own ?? [])].map((entry) => entry.trim()));
  for (const entry of unknown) {
    const suggestion = didYouMean(entry, PROTECT_PRESET_NAMES);
    problem(
      'DEF_PROTECT_PRESET',
      `\`${entry}\` is not a protect preset`,
      suggestion ? `did you mean \`${suggestion}\`?` : `presets: ${PROTECT_PRESET_NAMES.join(', ')}`,
    );
  }
  if (globs.length === 0) return {};
  return { protect: globs, ...(allow === true ? { allowProtectedEdits: true } : {}) };
}

function pushPolicy(layers: KnobLayer[], lookup: PlanLookup, id: string | undefined, label: string): void {
  if (id === undefined) return;
  const knobs = lookup.policy(id);
  if (knobs !== undefined) layers.push({ source: `${label} ${id}`, knobs });
}

function withoutBackend(knobs: SessionKnobs): SessionKnobs {
  const { backend: _dropped, ...rest } = knobs;
  return rest;
}

function provenanceOf(
  provenance: Partial<Record<string, string>>,
  backendSource: string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(provenance)) if (value !== undefined) out[key] = value;
  if (backendSource !== undefined) out.backend = backendSource;
  return out;
}

/** A step's `memory:` as its settings keep it: only what it asks for. */
function memoryOf(
  memory: { decisions?: boolean; map?: number; state?: boolean } | undefined,
): Pick<AgentSettings, 'memory'> {
  if (memory === undefined) return {};
  const kept = {
    ...(memory.decisions === true ? { decisions: true as const } : {}),
    ...(memory.map === undefined ? {} : { map: memory.map }),
    ...(memory.state === true ? { state: true as const } : {}),
  };
  return Object.keys(kept).length === 0 ? {} : { memory: kept };
}
