/**
 * Dispatching one persona (seed 004 §2): its knobs (policy → frontmatter → caller → owner cap)
 * become the scope's constraints, the decider it names is built, and one drive of the persona
 * flow machine runs (drive.ts: constraints in, the machine, sweep out, outcome records).
 */
import { randomBytes } from 'node:crypto';
import type { DotenvLayers } from '../agent/index.js';
import { personaDenyRules, type DefinitionSet, type Effort } from '../definitions/index.js';
import { trackRecords, type SessionRecordSource } from '../learning/index.js';
import type { MetricsSink } from '../observability/index.js';
import { rulesWithDefaults } from '../posture/index.js';
import type { PersonaSessionPort, Refusal } from './actors.js';
import { commandChecker, type Checker } from './check.js';
import type { Decider } from './decisions.js';
import { dispatchKnobs, type DispatchCaller } from './dispatch.js';
import { drivePersona, type PersonaRunResult } from './drive.js';
import type { DriverAgentFactory } from './llm-decider.js';
import type { LoadedPersona } from './load-persona.js';
import { makeDecider } from './make-decider.js';
import type { PersonaObserver } from './observation.js';
import type { HumanAsker, TerminalAsk } from './questions.js';
import { defined } from '../util/defined.js';

export type { PersonaRunResult } from './drive.js';

export interface RunPersonaOptions {
  /** NEO_HOME. */
  home: string;
  set: DefinitionSet;
  persona: LoadedPersona;
  brief: string;
  /** Where the driven agent works (absolute). */
  cwd: string;
  sessions: PersonaSessionPort;
  /** The ownership scope, unique per dispatch (default: `persona:<id>:<random>`). */
  scope?: string;
  /** The run questions are filed under (`neo flow approve <runId> <key>`); default: the scope's id part. */
  runId?: string;
  /** Prefixes question keys (a flow step's id), so they are unique in the run. */
  questionPrefix?: string;
  /** Reads released sessions for the outcome records (default: NEO_HOME's store). */
  store?: SessionRecordSource;
  caller?: DispatchCaller;
  taskTags?: string[];
  /** The caller's explicit model (id or class) and effort: they win over routing advice. */
  agentModel?: string;
  effort?: Effort;
  backendOptions?: Record<string, unknown>;
  /** Decides the verdict; default: the persona's `rules.verify`; null: no check at all. */
  checker?: Checker | null;
  /** Replaces the decider the persona names (tests, embedding). */
  decider?: Decider;
  /** Where a human decider (or a rules `ask`) asks; default: pending questions in NEO_HOME. */
  human?: HumanAsker;
  /** A terminal to ask at, raced with the pending question. */
  terminal?: TerminalAsk;
  /** Builds the llm decider's agent; default: neo's own agent from neo.yaml. */
  agent?: DriverAgentFactory;
  /** The `.env` files read with `set` (a flow's, at its run's start), for that default agent. */
  dotenv?: DotenvLayers;
  signal?: AbortSignal;
  observe?: PersonaObserver;
  /** Asked before each guidance: a reason to stop instead (a flow's budget is spent). */
  mayContinue?: () => string | undefined;
  /** The caller's last word on work judged done (a flow step's requireChange, outputSchema). */
  accept?: (text: string) => Promise<Refusal | undefined>;
  /** Append outcome records (default true). */
  record?: boolean;
  /** Starts to try before giving up (default 3). */
  maxStartAttempts?: number;
  env?: NodeJS.ProcessEnv;
  /** Dispatch and settle metrics (seed 004 §8); none: no-op. */
  metrics?: MetricsSink;
  /**
   * A supervised resume (seed 004 §5): the first session this persona starts adopts this record
   * (same id, gapless seq) instead of minting one. One-shot: once adopted, later starts mint.
   */
  adoptRecordId?: string;
}

export async function runPersona(o: RunPersonaOptions): Promise<PersonaRunResult> {
  const observe: PersonaObserver = o.observe ?? (() => {});
  const view = o.persona.view;
  const token = randomBytes(6).toString('hex');
  const scope = o.scope ?? `persona:${view.id}:${token}`;
  const runId = o.runId ?? `persona-${view.id}-${token}`;
  const signal = o.signal ?? new AbortController().signal;
  const dispatch = dispatchKnobs(o.set, o.persona.definition, o.caller);
  // A non-driver persona is the driven agent's role, under the default rules and its own denies
  // (a deny only narrows: it holds for a driver demoted because its project is not trusted).
  const denies = view.driver ? [] : personaDenyRules(o.set, o.persona.definition);
  const defaults = rulesWithDefaults(undefined);
  const rules = view.driver
    ? rulesWithDefaults(o.persona.definition.data.rules)
    : denies.length === 0
      ? defaults
      : { ...defaults, clarify: [...denies, ...(defaults.clarify ?? [])] };
  const checker =
    o.checker === null
      ? undefined
      : (o.checker ??
        (rules.verify === undefined
          ? undefined
          : commandChecker(rules.verify, { cwd: o.cwd, ...defined({ env: o.env }) })));
  const taskTags = [...new Set([...view.taskTags, ...(o.taskTags ?? [])])];
  const appendSystemPrompt = view.driver || view.instructions === '' ? undefined : view.instructions;
  // The persona's own model is the driven agent's only for a role persona (a driver's is its own).
  const agentModel = o.agentModel ?? (view.driver ? undefined : view.model);
  const effort = o.effort ?? o.persona.definition.data.effort;
  const sessions = o.adoptRecordId === undefined ? o.sessions : adoptingOnce(o.sessions, o.adoptRecordId);
  observe({
    type: 'constraints',
    scope,
    constraints: dispatch.constraints,
    provenance: provenanceOf(dispatch.provenance),
  });
  const stats = await trackRecords(o.home)
    .stats()
    .catch(() => new Map());
  const decider: Decider =
    o.decider ??
    (await makeDecider({
      kind: view.driver ? view.decide : 'rules',
      home: o.home,
      set: o.set,
      persona: o.persona,
      rules,
      brief: o.brief,
      cwd: o.cwd,
      runId,
      questionPrefix: o.questionPrefix ?? '',
      dispatch,
      taskTags,
      ...defined({ agentModel, effort, appendSystemPrompt }),
      ...(checker === undefined ? {} : { verify: checker.command }),
      successRate: (id) => stats.get(id)?.successRate,
      ...defined({ human: o.human, terminal: o.terminal, agent: o.agent }),
      sessions,
      scope,
      signal,
      observe,
      ...defined({ env: o.env, dotenv: o.dotenv }),
    }));
  return drivePersona({
    home: o.home,
    label: view.id,
    cwd: o.cwd,
    sessions,
    scope,
    runId,
    constraints: dispatch.constraints,
    initialPosture: dispatch.initialPosture,
    ...defined({ budgets: dispatch.knobs.budgets }),
    decider,
    ...defined({ checker, accept: o.accept, appendSystemPrompt, backendOptions: o.backendOptions }),
    signal,
    observe,
    ...defined({ mayContinue: o.mayContinue }),
    record: o.record !== false,
    ...defined({ store: o.store }),
    maxStartAttempts: o.maxStartAttempts ?? 3,
    ...defined({ metrics: o.metrics }),
  });
}

/**
 * The session port with a one-shot adopt pin: every registration of the scope's constraints
 * carries `adoptRecordId` until the record was adopted (a rejected start re-registers and still
 * adopts; a later start mints fresh).
 */
function adoptingOnce(port: PersonaSessionPort, recordId: string): PersonaSessionPort {
  let pending = true;
  const stop = port.onSessionEvent((live) => {
    if (live.sessionId === recordId && live.event.type === 'adopted') {
      pending = false;
      stop();
    }
  });
  return {
    execute: (input, caller) => port.execute(input, caller),
    onSessionEvent: (listener) => port.onSessionEvent(listener),
    setScopeConstraints: (scope, constraints) => {
      const { adoptRecordId: _ignored, ...rest } = constraints;
      port.setScopeConstraints(scope, pending ? { ...rest, adoptRecordId: recordId } : rest);
    },
    releaseAllOwnedBy: (scope) => {
      stop();
      return port.releaseAllOwnedBy(scope);
    },
  };
}

function provenanceOf(provenance: Partial<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(provenance)) if (v !== undefined) out[k] = v;
  return out;
}
