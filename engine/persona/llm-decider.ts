/**
 * The llm decider (seed 004's original driver): the persona's body is the system prompt of neo's
 * own agent, whose one tool is `code-session`. One conversation spans the whole dispatch: the
 * first message carries the task, the limits, list-backends, briefingNotes and lessons; every
 * read-turn result follows as a message, and the model answers each with one decision op. A turn
 * that ends without a decision is nudged once, then treated as no decision (the machine then
 * denies, or stops with `failed`) — a silent model never lets anything through.
 */
import {
  createConfiguredAgent,
  loadAgentSettings,
  isModelClass,
  type AgentTool,
  type DotenvLayers,
} from '../agent/index.js';
import type { Definition, Posture } from '../definitions/index.js';
import type { ScopeConstraints } from '../session/index.js';
import { FailureError } from '../util/errors.js';
import type {
  Answer,
  DecideInput,
  Decider,
  JudgeInput,
  Judgement,
  SelectInput,
  SessionInfo,
  StartPlan,
  Verdict,
  VerifyInput,
} from './decisions.js';
import {
  clarificationMessage,
  firstMessage,
  nudgeMessage,
  rejectedMessage,
  startedMessage,
  terminalMessage,
  turnMessage,
} from './llm-messages.js';
import { codeSessionTool, OpToolState, type DecisionMode, type SideOps, type ToolDecision } from './op-tool.js';
import { defined } from '../util/defined.js';

/** The slice of neo's agent the decider drives. */
export interface DriverAgent {
  send(text: string, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** Makes the driver's agent: its system prompt, its one tool, the persona's model (id or class). */
export type DriverAgentFactory = (options: {
  system: string;
  tools: AgentTool[];
  model?: string;
}) => Promise<DriverAgent>;

export interface LlmDeciderOptions {
  /** The persona body: the system prompt. */
  instructions: string;
  /** The persona's model (a class sentinel or an id); default: neo.yaml's agent.model. */
  model?: string;
  brief: string;
  cwd: string;
  constraints: ScopeConstraints;
  initialPosture: Posture;
  taskTags: string[];
  verify?: string;
  /** The lessons block ('' when none). */
  lessons: string;
  agent: DriverAgentFactory;
  /** set-posture and interrupt on the live session, with the persona's scope. */
  side: (sessionId: string) => SideOps;
  signal: AbortSignal;
}

export class LlmDecider implements Decider {
  readonly kind = 'llm' as const;
  readonly #o: LlmDeciderOptions;
  readonly #state = new OpToolState();
  #agent: Promise<DriverAgent> | undefined;
  #greeted = false;
  #announced: string | undefined;

  constructor(options: LlmDeciderOptions) {
    this.#o = options;
    this.#state.pin = options.constraints.backend;
  }

  async select(input: SelectInput): Promise<StartPlan> {
    this.#state.listing = input.listing;
    const last = input.rejections.at(-1);
    const message = !this.#greeted || last === undefined ? this.#first(input) : rejectedMessage(last);
    this.#greeted = true;
    const decision = await this.#decide('select', message);
    if (decision.op !== 'start') throw unexpected(decision);
    const s = decision.input;
    const tags = [...new Set([...this.#o.taskTags, ...(s.taskTags ?? [])])];
    return {
      backend: s.backend ?? this.#o.constraints.backend!,
      brief: s.brief,
      taskTags: tags,
      ...defined({ agentModel: s.agentModel, effort: s.effort, maxPosture: s.maxPosture }),
      initialPosture: s.initialPosture ?? this.#o.initialPosture,
      ...defined({ maxRounds: s.maxRounds, allowedTools: s.allowedTools, appendSystemPrompt: s.appendSystemPrompt }),
      why: `chosen by the llm driver (${this.#o.model ?? 'default model'})`,
    };
  }

  async decide(input: DecideInput): Promise<Answer> {
    this.#enter(input.session, 'decide', input.clarification.clarificationId);
    const decision = await this.#decide(
      'decide',
      clarificationMessage(input.clarification, input.session, this.#announce(input.session)),
    );
    if (decision.op !== 'answer') throw unexpected(decision);
    return {
      allow: decision.allow,
      reason: decision.reason ?? (decision.allow ? 'allowed by the driver' : 'denied by the driver'),
      ...defined({ note: decision.note }),
      by: 'llm',
    };
  }

  async judge(input: JudgeInput): Promise<Judgement> {
    this.#enter(input.session, 'judge');
    const prefix = this.#announce(input.session);
    const decision = await this.#decide(
      'judge',
      `${prefix === '' ? '' : `${prefix}\n`}${turnMessage(input.turn, input.session, input.check, input.attemptsLeft)}`,
    );
    if (decision.op === 'guide')
      return {
        kind: 'guide',
        text: decision.text,
        ...defined({ agentModel: decision.agentModel, effort: decision.effort }),
        why: 'the llm driver guided',
      };
    if (decision.op === 'stop')
      return {
        kind: 'stop',
        outcome: decision.outcome,
        note: decision.note ?? `stopped by the llm driver: ${decision.outcome}`,
      };
    throw unexpected(decision);
  }

  async verify(input: VerifyInput): Promise<Verdict> {
    this.#enter(input.session, 'verify');
    const prefix = this.#announce(input.session);
    const decision = await this.#decide(
      'verify',
      `${prefix === '' ? '' : `${prefix}\n`}${terminalMessage(input.terminal, input.session, input.check)}`,
    );
    if (decision.op !== 'stop') throw unexpected(decision);
    const note = decision.note ?? `stopped by the llm driver: ${decision.outcome}`;
    return { outcome: decision.outcome, note, ...(decision.outcome === 'success' ? {} : { failureReason: note }) };
  }

  #first(input: SelectInput): string {
    const o = this.#o;
    return firstMessage({
      brief: o.brief,
      cwd: o.cwd,
      constraints: o.constraints,
      initialPosture: o.initialPosture,
      taskTags: o.taskTags,
      ...defined({ verify: o.verify }),
      listing: input.listing,
      lessons: o.lessons,
    });
  }

  #enter(session: SessionInfo, mode: DecisionMode, clarificationId?: string): void {
    this.#state.side = this.#o.side(session.sessionId);
    this.#state.expect(mode, {
      sessionId: session.sessionId,
      ...defined({ clarificationId }),
    });
  }

  /** The first message about a session says it started. */
  #announce(session: SessionInfo): string {
    if (this.#announced === session.sessionId) return '';
    this.#announced = session.sessionId;
    return startedMessage(session);
  }

  async #decide(mode: DecisionMode, message: string): Promise<ToolDecision> {
    if (mode === 'select') this.#state.expect('select');
    const agent = await this.#agentOnce();
    await agent.send(message, { signal: this.#o.signal });
    if (this.#state.decision === undefined) {
      await agent.send(
        nudgeMessage(
          mode === 'select'
            ? ['start']
            : mode === 'decide'
              ? ['answer']
              : mode === 'judge'
                ? ['guide', 'stop']
                : ['stop'],
        ),
        { signal: this.#o.signal },
      );
    }
    const decision = this.#state.decision;
    if (decision === undefined)
      throw new FailureError('PERSONA_NO_DECISION', `the llm driver made no ${mode} decision`);
    return decision;
  }

  #agentOnce(): Promise<DriverAgent> {
    this.#agent ??= this.#o.agent({
      system: this.#o.instructions,
      tools: [codeSessionTool(this.#state)],
      ...defined({ model: this.#o.model }),
    });
    return this.#agent;
  }
}

function unexpected(decision: ToolDecision): Error {
  return new FailureError(
    'PERSONA_NO_DECISION',
    `the llm driver answered with ${decision.op} where another decision was expected`,
  );
}

/**
 * neo's own agent from neo.yaml (NEO_HOME, then the project's `.neo/`). A model class the
 * provider leaves unmapped falls back to `agent.model` when one is set.
 */
export function configuredDriverAgent(options: {
  home: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The neo.yaml layers loaded with the caller's definitions (never re-read from `cwd`, which a confined step may have written). */
  configs?: readonly Definition<'config'>[];
  /** The `.env` files read with those layers (a flow's, at its run's start): the same reason. */
  dotenv?: DotenvLayers;
}): DriverAgentFactory {
  return async ({ system, tools, model }) => {
    const settings = await loadAgentSettings({
      cwd: options.cwd,
      home: options.home,
      ...defined({ env: options.env, configs: options.configs, dotenv: options.dotenv }),
    });
    const mapped =
      model !== undefined &&
      isModelClass(model) &&
      settings.provider.models[model] === undefined &&
      settings.model !== undefined
        ? undefined
        : model;
    return createConfiguredAgent({ settings, system, tools, ...defined({ model: mapped }) });
  };
}
