import type { Posture } from '../../definitions/index.js';
import { keepAlive } from '../../execution/index.js';
import { isPosture } from '../../posture/index.js';
import { NeoError } from '../../util/errors.js';
import { EventChannel } from '../shared/event-channel.js';
import type { AgentEvent, AgentSession, SessionSandbox, Usage } from '../types.js';
import { saveProgress } from './progress.js';
import type { PlayTurn, ScriptPlan } from './script-model.js';
import { abortable, playTurn, TurnAbort, type Decision, type TurnControls, type TurnOutcome } from './turn-player.js';
import type { Workspace } from './workspace.js';
import { defined } from '../../util/defined.js';

export interface ScriptSessionOptions {
  plan: ScriptPlan;
  workspace: Workspace;
  brief: string;
  posture: Posture;
  env: NodeJS.ProcessEnv;
  sandbox?: SessionSandbox;
  externalSessionId: string;
  model: string;
  /** Where to continue: the first unplayed turn and how many were played (0, 0 for a new session). */
  nextTurn: number;
  turnsPlayed: number;
  sessionDir?: string;
}

/**
 * One live script session. Turn 1 answers the brief; afterwards the session waits, and each
 * guidance (or guidance queued while a turn ran) starts the next turn whose `when` matches it.
 * The stream ends after `ended`, a fatal error, or stop().
 */
export class ScriptSession implements AgentSession {
  readonly events = new EventChannel<AgentEvent>();
  readonly #options: ScriptSessionOptions;
  #posture: Posture;
  #nextTurn: number;
  #turnsPlayed: number;
  #guidance: string[] = [];
  #wake: (() => void) | undefined;
  #turn: AbortController | undefined;
  readonly #stopSignal = new AbortController();
  #pending: { id: string; resolve: (decision: Decision) => void } | undefined;
  #finished = false;
  #stopping: Promise<void> | undefined;
  readonly #main: Promise<void>;

  constructor(options: ScriptSessionOptions) {
    this.#options = options;
    this.#posture = options.posture;
    this.#nextTurn = options.nextTurn;
    this.#turnsPlayed = options.turnsPlayed;
    this.#main = this.#run();
  }

  async sendGuidance(text: string): Promise<void> {
    if (this.#finished || this.#stopping !== undefined) throw ended();
    this.#guidance.push(text);
    this.#wake?.();
  }

  async answer(clarificationId: string, decision: { allow: boolean; reason?: string }): Promise<void> {
    const pending = this.#pending;
    if (pending === undefined || pending.id !== clarificationId) {
      throw new NeoError('TRANSPORT_UNKNOWN_CLARIFICATION', `no pending clarification ${clarificationId}`, {
        hint: pending === undefined ? 'nothing is waiting for an answer' : `the pending one is ${pending.id}`,
      });
    }
    this.#pending = undefined;
    pending.resolve(
      decision.reason === undefined ? { allow: decision.allow } : { allow: decision.allow, reason: decision.reason },
    );
  }

  async setPosture(posture: Posture): Promise<void> {
    if (!isPosture(posture))
      throw new NeoError('TRANSPORT_BAD_POSTURE', `unknown posture ${JSON.stringify(posture)}`, {
        hint: 'plan, default, acceptEdits or full',
      });
    this.#posture = posture;
  }

  async interrupt(): Promise<void> {
    this.#turn?.abort(new TurnAbort('interrupt'));
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#stopSignal.abort(new TurnAbort('stop'));
      this.#wake?.();
      await this.#main;
      this.events.close();
    })();
    return this.#stopping;
  }

  async #run(): Promise<void> {
    const { plan, brief, externalSessionId, model } = this.#options;
    // A `hang` or a wait for guidance is waiting on the outside: it keeps the process alive
    // until the session ends or is stopped, as a CLI child would.
    const letGo = keepAlive();
    try {
      await this.#saveProgress();
      this.events.push({ type: 'started', externalSessionId, model });
      let prompt = brief;
      for (;;) {
        const turn = pickTurn(plan.turns, this.#nextTurn, prompt);
        if ('missing' in turn)
          this.events.push({ type: 'error', code: turn.missing, message: turn.message, fatal: false });
        else if (await this.#playTurn(turn)) return;
        prompt = await this.#nextPrompt();
      }
    } catch (error) {
      if (!(error instanceof TurnAbort)) {
        this.events.push({
          type: 'error',
          code: 'TRANSPORT_SCRIPT_INTERNAL',
          message: `script backend failed: ${(error as Error).message ?? String(error)}`,
          fatal: true,
        });
      }
    } finally {
      letGo();
      this.#finished = true;
      this.#pending = undefined;
      this.events.close();
    }
  }

  /** Plays one turn and reports how it ended; true when the session is over. */
  async #playTurn(turn: PlayTurn): Promise<boolean> {
    const ordinal = this.#turnsPlayed + 1;
    const controller = new AbortController();
    this.#turn = controller;
    let outcome: TurnOutcome | { kind: 'interrupted' };
    try {
      outcome = await playTurn(
        turn.steps,
        ordinal,
        this.#controls(AbortSignal.any([controller.signal, this.#stopSignal.signal])),
      );
    } catch (error) {
      if (!(error instanceof TurnAbort) || this.#stopSignal.signal.aborted) throw error;
      outcome = { kind: 'interrupted' };
    } finally {
      this.#turn = undefined;
      this.#pending = undefined;
    }
    this.#turnsPlayed = ordinal;
    this.#nextTurn = turn.index + 1;
    // Progress is on disk before the turn's end is reported, so a resume never replays it.
    await this.#saveProgress();
    const figures = costFigures(turn);
    switch (outcome.kind) {
      case 'complete':
        this.events.push({
          type: 'turn_complete',
          numTurns: ordinal,
          ...figures,
          ...defined({ text: outcome.text }),
        });
        return false;
      case 'interrupted':
        this.events.push({ type: 'turn_complete', numTurns: ordinal, ...figures, interrupted: true });
        return false;
      case 'failed':
        this.events.push({
          type: 'error',
          code: 'TRANSPORT_SCRIPT_FAIL',
          message: outcome.message,
          transient: outcome.transient,
          fatal: outcome.fatal,
        });
        return outcome.fatal;
      case 'ended':
        this.events.push({ type: 'ended', ok: outcome.ok, text: outcome.text, numTurns: ordinal, ...figures });
        return true;
    }
  }

  #controls(signal: AbortSignal): TurnControls {
    return {
      signal,
      workspace: this.#options.workspace,
      env: this.#options.env,
      ...defined({ sandbox: this.#options.sandbox }),
      posture: () => this.#posture,
      emit: (event) => this.events.push(event),
      ask: (clarificationId, ask, input) => {
        const answered = new Promise<Decision>((resolve) => {
          this.#pending = { id: clarificationId, resolve };
        });
        this.events.push({ type: 'clarify', clarificationId, toolName: ask.toolName, input, ask });
        return abortable(answered, signal);
      },
    };
  }

  /** Waits for guidance; everything queued meanwhile becomes one prompt. */
  async #nextPrompt(): Promise<string> {
    while (this.#guidance.length === 0) {
      if (this.#stopSignal.signal.aborted) throw this.#stopSignal.signal.reason;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    const prompt = this.#guidance.join('\n\n');
    this.#guidance = [];
    return prompt;
  }

  #saveProgress(): Promise<void> {
    const { plan, externalSessionId, sessionDir } = this.#options;
    return saveProgress(sessionDir, {
      version: 1,
      externalSessionId,
      scriptHash: plan.hash,
      scriptFile: plan.file,
      nextTurn: this.#nextTurn,
      turnsPlayed: this.#turnsPlayed,
      updatedAt: new Date().toISOString(),
    });
  }
}

/** The first turn from `from` on whose `when` matches the prompt (case-insensitive). */
export function pickTurn(
  turns: readonly PlayTurn[],
  from: number,
  prompt: string,
): PlayTurn | { missing: string; message: string } {
  if (from >= turns.length) {
    return {
      missing: 'TRANSPORT_SCRIPT_EXHAUSTED',
      message: `the script has no turn left (all ${turns.length} played)`,
    };
  }
  const text = prompt.toLowerCase();
  for (let i = from; i < turns.length; i++) {
    const turn = turns[i]!;
    if (turn.guidanceContains === undefined || turn.guidanceContains.some((needle) => text.includes(needle)))
      return turn;
  }
  const range = from + 1 === turns.length ? `turn ${turns.length}` : `turns ${from + 1}–${turns.length}`;
  return {
    missing: 'TRANSPORT_SCRIPT_NO_MATCHING_TURN',
    message: `no remaining turn of the script (${range}) matches this prompt`,
  };
}

function costFigures(turn: PlayTurn): { costUsd?: number; usage?: Usage } {
  const cost = turn.cost;
  if (cost === undefined) return {};
  const usage: Usage = {};
  if (cost.inputTokens !== undefined) usage.inputTokens = cost.inputTokens;
  if (cost.outputTokens !== undefined) usage.outputTokens = cost.outputTokens;
  if (cost.cachedInputTokens !== undefined) usage.cachedInputTokens = cost.cachedInputTokens;
  if (cost.reasoningTokens !== undefined) usage.reasoningTokens = cost.reasoningTokens;
  return {
    ...defined({ costUsd: cost.usd }),
    ...(Object.keys(usage).length === 0 ? {} : { usage }),
  };
}

function ended(): NeoError {
  return new NeoError('TRANSPORT_SESSION_ENDED', 'the script session has ended', {
    hint: 'start a new session, or resume this one by its externalSessionId',
  });
}
