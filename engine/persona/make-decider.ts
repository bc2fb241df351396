/** Builds the decider a persona names (`decide: rules | llm | human`). */
import type { DotenvLayers } from '../agent/index.js';
import type { DefinitionSet, Effort, Posture } from '../definitions/index.js';
import { lessonBlock } from '../learning/index.js';
import type { CodeSessionInput } from '../session/index.js';
import type { PersonaSessionPort } from './actors.js';
import type { ClarifyRules as PersonaRules } from '../posture/index.js';
import type { Decider, DeciderKind } from './decisions.js';
import type { DispatchKnobs } from './dispatch.js';
import { HumanDecider } from './human-decider.js';
import { configuredDriverAgent, LlmDecider, type DriverAgentFactory } from './llm-decider.js';
import type { LoadedPersona } from './load-persona.js';
import type { PersonaObserver } from './observation.js';
import { pendingQuestionAsker, type HumanAsker, type TerminalAsk } from './questions.js';
import { RulesDecider } from './rules-decider.js';
import { defined } from '../util/defined.js';

export interface MakeDeciderOptions {
  kind: DeciderKind;
  home: string;
  set: DefinitionSet;
  persona: LoadedPersona;
  rules: PersonaRules;
  brief: string;
  cwd: string;
  runId: string;
  questionPrefix: string;
  dispatch: DispatchKnobs;
  taskTags: string[];
  agentModel?: string;
  effort?: Effort;
  appendSystemPrompt?: string;
  verify?: string;
  successRate: (backendId: string) => number | undefined;
  human?: HumanAsker;
  terminal?: TerminalAsk;
  agent?: DriverAgentFactory;
  sessions: PersonaSessionPort;
  scope: string;
  signal: AbortSignal;
  observe: PersonaObserver;
  env?: NodeJS.ProcessEnv;
  /** The `.env` files read with `set` (a flow's, at its run's start); read when the agent starts otherwise. */
  dotenv?: DotenvLayers;
}

export async function makeDecider(o: MakeDeciderOptions): Promise<Decider> {
  const asker =
    o.human ??
    pendingQuestionAsker({
      home: o.home,
      ...defined({ terminal: o.terminal }),
      onWaiting: (question, command) =>
        o.observe({ type: 'waiting', runId: question.runId, key: question.key, prompt: question.prompt, command }),
    });
  const rules = new RulesDecider({
    rules: o.rules,
    brief: o.brief,
    taskTags: o.taskTags,
    ...defined({ pin: o.dispatch.constraints.backend }),
    initialPosture: o.dispatch.initialPosture,
    wantsToolLimit: o.dispatch.constraints.allowedTools !== undefined,
    ...defined({ agentModel: o.agentModel, effort: o.effort, appendSystemPrompt: o.appendSystemPrompt }),
    routings: o.set.list('routing').map((d) => ({ id: d.id, data: d.data })),
    ...defined({ verify: o.verify }),
    successRate: o.successRate,
    human: { asker, runId: o.runId, keyPrefix: o.questionPrefix, signal: o.signal },
  });
  if (o.kind === 'rules') return rules;
  if (o.kind === 'human')
    return new HumanDecider({
      rules,
      personaRules: o.rules,
      asker,
      runId: o.runId,
      keyPrefix: o.questionPrefix,
      signal: o.signal,
    });
  const exec = <I extends CodeSessionInput>(input: I) => o.sessions.execute(input, { scope: o.scope });
  return new LlmDecider({
    instructions: o.persona.view.instructions,
    ...defined({ model: o.persona.view.model }),
    brief: o.brief,
    cwd: o.cwd,
    constraints: o.dispatch.constraints,
    initialPosture: o.dispatch.initialPosture,
    taskTags: o.taskTags,
    ...defined({ verify: o.verify }),
    // A pinned backend gets its own lessons; otherwise those of every backend the driver may pick.
    lessons: await lessonBlock(o.home, {
      backendIds:
        o.dispatch.constraints.backend === undefined ? o.set.ids('backend') : [o.dispatch.constraints.backend],
      taskTags: o.taskTags,
    }),
    agent:
      o.agent ??
      configuredDriverAgent({
        home: o.home,
        cwd: o.cwd,
        configs: o.set.configs,
        ...defined({ env: o.env, dotenv: o.dotenv }),
      }),
    side: (sessionId) => ({
      // The model's word, unchecked here: the session service parses every op input loudly and
      // its refusal goes back to the model.
      setPosture: (posture) => exec({ op: 'set-posture', sessionId, posture: posture as Posture }),
      interrupt: () => exec({ op: 'interrupt', sessionId }),
    }),
    signal: o.signal,
  });
}
