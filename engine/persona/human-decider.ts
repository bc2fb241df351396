/**
 * The human decider: a person answers every permission ask and judges every finished turn (stop
 * with a verdict, or send guidance), at the terminal or with `neo flow approve`. Choosing the
 * backend and judging a session that ended on its own stay with the persona's rules — a person
 * is asked what only a person should decide, not to pick from a capability matrix.
 */
import {
  DEFAULT_GATE_GUIDANCE,
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
import type { ClarifyRules as PersonaRules } from '../posture/index.js';
import type { RulesDecider } from './rules-decider.js';

export interface HumanDeciderOptions {
  /** Select and verify come from here. */
  rules: RulesDecider;
  personaRules: PersonaRules;
  asker: HumanAsker;
  runId: string;
  /** Prefixes question keys (a flow step's id) so they are unique in the run. */
  keyPrefix: string;
  signal: AbortSignal;
}

const STOP_DECISIONS = ['success', 'partial', 'failed', 'aborted'] as const;

export class HumanDecider implements Decider {
  readonly kind = 'human' as const;
  readonly #o: HumanDeciderOptions;
  #questions = 0;

  constructor(options: HumanDeciderOptions) {
    this.#o = options;
  }

  select(input: SelectInput): Promise<StartPlan> {
    return this.#o.rules.select(input);
  }

  verify(input: VerifyInput): Promise<Verdict> {
    return this.#o.rules.verify(input);
  }

  async decide(input: DecideInput): Promise<Answer> {
    const ask = input.clarification;
    const answer = await this.#o.asker.ask(
      {
        runId: this.#o.runId,
        key: this.#key(),
        prompt: `The agent asks to use ${ask.toolName}. Allow it?`,
        detail: JSON.stringify(ask.input, null, 2),
        decisions: [
          { id: 'allow', label: 'allow it' },
          { id: 'deny', label: 'deny it (the note is the reason the agent sees)' },
        ],
      },
      this.#o.signal,
    );
    const allow = answer.decision === 'allow';
    return {
      allow,
      reason: answer.note ?? (allow ? 'allowed by a person' : 'denied by a person'),
      by: `human (${answer.by})`,
    };
  }

  async judge(input: JudgeInput): Promise<Judgement> {
    const check = input.check;
    const checkLine =
      check === undefined
        ? 'No verify command ran.'
        : `\`${check.command}\` ${check.passed ? 'passed' : `failed (exit ${check.exitCode ?? '?'})`}.`;
    const answer = await this.#o.asker.ask(
      {
        runId: this.#o.runId,
        key: this.#key(),
        prompt: `Turn ${input.session.backend} finished. ${checkLine} Stop with a verdict, or guide the agent (the note is the guidance).`,
        detail: [input.turn.text, input.turn.turnDiff?.summaryLine ?? '', check && !check.passed ? check.tail : '']
          .filter((s) => s !== '')
          .join('\n\n'),
        decisions: [
          { id: 'guide', label: 'send the note as guidance (the check output when there is no note)' },
          ...STOP_DECISIONS.map((id) => ({ id, label: `stop: ${id}` })),
        ],
      },
      this.#o.signal,
    );
    if (answer.decision === 'guide') {
      const text =
        answer.note ??
        (check !== undefined && !check.passed
          ? fillGuidance(this.#o.personaRules.gateGuidance ?? DEFAULT_GATE_GUIDANCE, check)
          : 'Continue with the task.');
      return { kind: 'guide', text, why: `guided by a person (${answer.by})` };
    }
    const outcome = (STOP_DECISIONS as readonly string[]).includes(answer.decision)
      ? (answer.decision as (typeof STOP_DECISIONS)[number])
      : 'aborted';
    return { kind: 'stop', outcome, note: answer.note ?? `${outcome}, judged by a person (${answer.by})` };
  }

  #key(): string {
    return `${this.#o.keyPrefix}q${++this.#questions}`;
  }
}
