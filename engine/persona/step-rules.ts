/**
 * The default rules persona of a flow (`flow-default`): how an agent step that no driver persona
 * drives is driven. It is the rules decider with the step's own rules — the default rules (edits
 * and reads inside the workspace), one allow rule per `allowCommands` entry and the gate's own
 * command, after the role persona's denies — on the start the flow resolved (its backend, model,
 * effort, posture and rounds; no listing, no routing: the plan already chose). A step without a
 * gate is not `partial`: proving it is left to the flow (requireCheck false). Its sessions'
 * outcomes are recorded by the session service when the drive releases them.
 */
import { rulesAllowingCommands } from '../posture/index.js';
import type { PersonaSessionPort, Refusal } from './actors.js';
import type { Checker } from './check.js';
import { drivePersona, type PersonaRunResult } from './drive.js';
import type { PersonaObserver } from './observation.js';
import { RulesDecider } from './rules-decider.js';
import type { StepSettings } from './step-contract.js';
import { defined } from '../util/defined.js';

/** The id the default rules persona goes by in logs and decision records. */
const FLOW_DEFAULT_PERSONA = 'flow-default';

export interface StepDrive {
  home: string;
  scope: string;
  runId: string;
  brief: string;
  cwd: string;
  sessions: PersonaSessionPort;
  checker?: Checker;
  backendOptions?: Record<string, unknown>;
  signal: AbortSignal;
  observe: PersonaObserver;
  mayContinue: () => string | undefined;
  accept: (text: string) => Promise<Refusal | undefined>;
}

export function driveStepRules(d: StepDrive, s: StepSettings): Promise<PersonaRunResult> {
  const commands = [...s.allowCommands, ...(s.verify === undefined ? [] : [s.verify.run])];
  const allowing = rulesAllowingCommands(commands);
  const rules = { ...allowing, clarify: [...(s.denyRules ?? []), ...(allowing.clarify ?? [])] };
  const decider = new RulesDecider({
    rules,
    brief: d.brief,
    taskTags: s.taskTags,
    ...defined({ pin: s.backend }),
    initialPosture: s.initialPosture,
    wantsToolLimit: s.allowedTools !== undefined,
    ...defined({ agentModel: s.model, effort: s.effort, appendSystemPrompt: s.appendSystemPrompt }),
    routings: [],
    fixedStart: defined({ maxRounds: s.maxRounds, allowedTools: s.allowedTools }),
    editToolNames: s.editToolNames,
    allowCommands: commands,
    maxCheckAttempts: s.verify?.attempts ?? 0,
  });
  return drivePersona({
    home: d.home,
    label: s.persona ?? FLOW_DEFAULT_PERSONA,
    cwd: d.cwd,
    sessions: d.sessions,
    scope: d.scope,
    runId: d.runId,
    constraints: {
      maxPosture: s.maxPosture,
      ...defined({ backend: s.backend, maxRounds: s.maxRounds, allowedTools: s.allowedTools }),
    },
    initialPosture: s.initialPosture,
    decider,
    ...defined({ checker: d.checker }),
    requireCheck: false,
    accept: d.accept,
    listBackends: false,
    ...defined({ backendOptions: d.backendOptions }),
    signal: d.signal,
    observe: d.observe,
    mayContinue: d.mayContinue,
    record: false,
    maxStartAttempts: 1,
  });
}
