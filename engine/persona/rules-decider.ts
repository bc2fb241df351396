/**
 * The rules decider: every decision from the persona's frontmatter, no model. Select follows
 * `rules.prefer`/`rules.require` (and the routing advice for the task's tags when nothing pins a
 * model or effort); a clarification is answered by `rules.clarify` — an `ask` (or `otherwise:
 * ask`) goes to a person when one can be asked and is denied otherwise; a finished turn is judged
 * by the verify command, a failure going back as `rules.gateGuidance`.
 */
import type { Effort, Posture, Routing } from '../definitions/index.js';
import { routingAdvice } from '../routing/index.js';
import { shapeBrief } from './brief.js';
import { answerAsk, toolAskFromInput, type ClarifyRules as PersonaRules } from '../posture/index.js';
import { isPermanentProviderCode, PROVIDER_CODES } from '../transports/index.js';
import {
  DEFAULT_GATE_GUIDANCE,
  VERDICT_CODES,
  checkResultText,
  fillGuidance,
  type Answer,
  type DecideInput,
  type Decider,
  type JudgeInput,
  type Judgement,
  type SelectInput,
  type StartPlan,
  type Verdict,
  type VerifyInput,
} from './decisions.js';
import type { HumanAsker } from './questions.js';
import { chooseBackend } from './select-backend.js';
import { defined } from '../util/defined.js';

export interface RulesDeciderOptions {
  rules: PersonaRules;
  brief: string;
  taskTags: string[];
  /** The scope's backend pin. */
  pin?: string;
  initialPosture: Posture;
  /** The scope limits tools (prefer backends that enforce a list). */
  wantsToolLimit: boolean;
  /** The caller's explicit model and effort: they win over routing advice. */
  agentModel?: string;
  effort?: Effort;
  appendSystemPrompt?: string;
  routings: ReadonlyArray<{ id: string; data: Routing }>;
  /** The verify command, for the brief. */
  verify?: string;
  successRate?: (backendId: string) => number | undefined;
  /** Where an `ask` goes; without one an ask is denied. */
  human?: { asker: HumanAsker; runId: string; keyPrefix: string; signal: AbortSignal };
  /**
   * The caller fixed the start (a flow step): the pinned backend, or the session service's
   * default when none is pinned, with the brief as written; no listing, no routing advice.
   */
  fixedStart?: { maxRounds?: number; allowedTools?: string[] };
  /** Tool names that edit files on the session's backend (read from its descriptor). */
  editToolNames?: readonly string[];
  /** The command rules the rules allow, named when a command is refused. */
  allowCommands?: readonly string[];
  /** Runs of a failing check before the verdict is `failed` (0: no bound), for the guidance. */
  maxCheckAttempts?: number;
}

export class RulesDecider implements Decider {
  readonly kind = 'rules' as const;
  readonly #o: RulesDeciderOptions;
  #questions = 0;

  constructor(options: RulesDeciderOptions) {
    this.#o = options;
  }

  async select(input: SelectInput): Promise<StartPlan> {
    const o = this.#o;
    if (o.fixedStart !== undefined) return this.#fixedPlan(o.fixedStart);
    const choice = chooseBackend({
      listing: input.listing,
      rules: o.rules,
      ...defined({ pin: o.pin }),
      posture: o.initialPosture,
      wantsToolLimit: o.wantsToolLimit,
      rejections: input.rejections,
      ...defined({ successRate: o.successRate }),
    });
    const listing = input.listing.find((l) => l.id === choice.backend)!;
    const advice =
      o.agentModel !== undefined && o.effort !== undefined
        ? undefined
        : routingAdvice(o.routings, listing.descriptor, o.taskTags);
    const agentModel = o.agentModel ?? advice?.modelClass;
    const effort = o.effort ?? advice?.effort;
    const advised = advice !== undefined && (advice.modelClass !== undefined || advice.effort !== undefined);
    const why = [
      choice.why,
      ...(advised
        ? [
            `routing (${advice!.taskClass}): ${advice!.modelClass ?? 'backend model'}${advice!.effort ? ` @ ${advice!.effort}` : ''}`,
          ]
        : []),
    ].join('; ');
    return {
      backend: choice.backend,
      brief: shapeBrief(o.brief, defined({ verify: o.verify })),
      taskTags: o.taskTags,
      initialPosture: o.initialPosture,
      ...defined({ agentModel, effort, appendSystemPrompt: o.appendSystemPrompt }),
      why,
    };
  }

  #fixedPlan(fixed: NonNullable<RulesDeciderOptions['fixedStart']>): StartPlan {
    const o = this.#o;
    return {
      ...defined({ backend: o.pin }),
      brief: o.brief,
      taskTags: o.taskTags,
      initialPosture: o.initialPosture,
      ...defined({
        maxRounds: fixed.maxRounds,
        allowedTools: fixed.allowedTools,
        agentModel: o.agentModel,
        effort: o.effort,
        appendSystemPrompt: o.appendSystemPrompt,
      }),
      why: o.pin === undefined ? "the session service's default backend" : `the step's backend ${o.pin}`,
    };
  }

  async decide(input: DecideInput): Promise<Answer> {
    const clarification = input.clarification;
    const ask =
      clarification.ask ?? toolAskFromInput(clarification.toolName, clarification.input, this.#o.editToolNames);
    const verdict = answerAsk(ask, {
      posture: input.session.maxPosture,
      workspace: input.session.cwd,
      rules: this.#o.rules,
      ...defined({ allowCommands: this.#o.allowCommands }),
    });
    if (verdict.decision !== 'ask')
      return { allow: verdict.decision === 'allow', reason: verdict.reason, by: verdict.rule };
    const human = this.#o.human;
    if (human === undefined)
      return {
        allow: false,
        reason: `${verdict.reason}; no person can be asked here, so it is not allowed`,
        by: verdict.rule,
      };
    const key = `${human.keyPrefix}q${++this.#questions}`;
    const answer = await human.asker.ask(
      {
        runId: human.runId,
        key,
        prompt: `Allow ${ask.toolName}?`,
        detail: JSON.stringify(clarification.input, null, 2),
        decisions: [
          { id: 'allow', label: 'allow it' },
          { id: 'deny', label: 'deny it (the note is the reason)' },
        ],
      },
      human.signal,
    );
    const allow = answer.decision === 'allow';
    return {
      allow,
      reason: answer.note ?? (allow ? 'allowed by a person' : 'denied by a person'),
      by: `${verdict.rule} → human (${answer.by})`,
    };
  }

  async judge(input: JudgeInput): Promise<Judgement> {
    const check = input.check;
    if (check === undefined) return { kind: 'stop', outcome: 'success', note: 'the agent finished its turn' };
    if (check.passed)
      return {
        kind: 'stop',
        outcome: 'success',
        note: `\`${check.command}\` passed${check.flaky ? ' (after a flaky first run)' : ''}`,
      };
    const text = fillGuidance(this.#o.rules.gateGuidance ?? DEFAULT_GATE_GUIDANCE, check, {
      n: input.attempt,
      of: this.#o.maxCheckAttempts ?? 0,
    });
    if (input.attemptsLeft)
      return { kind: 'guide', text, why: `\`${check.command}\` failed (attempt ${input.attempt})` };
    return {
      kind: 'stop',
      outcome: 'failed',
      note: `the check \`${check.command}\` still fails after ${input.attempt} attempt${input.attempt === 1 ? '' : 's'} (${checkResultText(check)})`,
      code: VERDICT_CODES.checkFailed,
    };
  }

  async verify(input: VerifyInput): Promise<Verdict> {
    return verdictFor(input);
  }
}

/** The verdict rules give a session that ended, failed or spent its rounds. */
export function verdictFor(input: VerifyInput): Verdict {
  const t = input.terminal;
  const check = input.check;
  if (t.kind === 'error') {
    const reason = t.stalled ? `stalled: ${t.message}` : `the agent failed: ${clip(t.message)}`;
    // A provider failure keeps the transport's code: a rejected key is not a generic agent error,
    // and retrying cannot fix it.
    const provider = Object.values(PROVIDER_CODES).find((c) => c === t.code);
    const code = t.stalled ? VERDICT_CODES.stalled : (provider ?? VERDICT_CODES.agentError);
    return { outcome: 'failed', note: reason, failureReason: reason, code, transient: !isPermanentProviderCode(code) };
  }
  if (t.kind === 'ended' && !t.ok) {
    const reason = `the agent ended the session with a failure${t.text ? `: ${clip(t.text)}` : ''}`;
    return { outcome: 'failed', note: reason, failureReason: reason, code: VERDICT_CODES.agentFailed, transient: true };
  }
  if (check !== undefined && !check.passed) {
    const reason =
      t.kind === 'max_rounds'
        ? `the agent used all ${t.rounds} rounds and the check \`${check.command}\` still fails`
        : `the check \`${check.command}\` fails after the agent ended the session (${checkResultText(check)})`;
    return {
      outcome: 'failed',
      note: reason,
      failureReason: reason,
      code: t.kind === 'max_rounds' ? VERDICT_CODES.maxRounds : VERDICT_CODES.checkFailed,
    };
  }
  const how = check === undefined ? 'nothing verified it' : `\`${check.command}\` passed`;
  return {
    outcome: 'success',
    note: t.kind === 'max_rounds' ? `round budget spent (${t.rounds}); ${how}` : `the agent ended the session; ${how}`,
  };
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}
