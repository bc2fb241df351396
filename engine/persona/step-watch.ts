/**
 * A flow step's live figures, read from the persona drive's observations: the ledger is charged
 * as the backend reports spending (each model call's usage while a turn streams, the rest when
 * it completes, so a budget can stop the turn it crosses), the live view gets the tool, round,
 * cost, files and the backend's notices as they happen, and the step's idle (stall) timeout
 * fires when the agent is silent that long. Time spent running the check or waiting for a
 * person is not the agent being silent.
 */
import { TurnUsage } from '../session/index.js';
import { VERDICT_CODES } from './decisions.js';
import type { PersonaObservation } from './observation.js';
import type { FlowAgentContext } from './step-contract.js';
import { defined } from '../util/defined.js';

export class StepWatch {
  readonly #controller = new AbortController();
  /** Aborted by the flow (its signal) or by a stall. */
  readonly signal: AbortSignal;
  readonly idleMs: number | undefined;
  readonly #ctx: FlowAgentContext;
  readonly #turn = new TurnUsage();
  readonly #files = new Set<string>();
  #last: number;
  #paused = false;
  #timer: NodeJS.Timeout | undefined;
  #maxRounds: number | undefined;
  rounds = 0;
  costUsd = 0;
  stalled = false;

  constructor(ctx: FlowAgentContext, idleMs: number | undefined) {
    this.#ctx = ctx;
    this.idleMs = idleMs;
    this.signal = AbortSignal.any([ctx.signal, this.#controller.signal]);
    this.#last = ctx.now();
    if (idleMs !== undefined) {
      this.#timer = setInterval(
        () => {
          if (this.#paused || this.stalled || ctx.now() - this.#last < idleMs) return;
          this.stalled = true;
          // A stall is the agent failing, not the step being stopped: the session ends `failed`.
          this.#controller.abort({
            code: VERDICT_CODES.stalled,
            message: `stalled: the agent sent no event for ${Math.round(idleMs / 100) / 10}s`,
            failed: true,
          });
        },
        Math.max(20, Math.min(1000, Math.floor(idleMs / 4))),
      );
      this.#timer.unref();
    }
  }

  /** Neo itself is working (a baseline check): not the agent being silent. */
  pause(): void {
    this.#paused = true;
  }

  observe(o: PersonaObservation): void {
    this.#last = this.#ctx.now();
    this.#paused = false;
    const progress = this.#ctx.progress;
    switch (o.type) {
      case 'started':
        this.#maxRounds = o.session.maxRounds;
        progress({
          backend: o.session.backend,
          round: 1,
          maxRounds: o.session.maxRounds,
          sessionId: o.session.sessionId,
        });
        return;
      case 'waiting':
        this.#paused = true;
        progress({ note: `waiting for approval: ${o.command}` });
        return;
      case 'notice':
        if (o.message.startsWith('checking')) this.#paused = true;
        progress({ note: o.message });
        return;
      case 'checked':
        progress({ note: o.check.passed ? 'check passed' : 'check failed' });
        return;
      case 'answered':
        progress({ note: `${o.answer.allow ? 'allowed' : 'denied'} ${o.toolName}` });
        return;
      case 'agent':
        return this.#onEvent(o.live.event);
      default:
        return;
    }
  }

  #onEvent(e: Extract<PersonaObservation, { type: 'agent' }>['live']['event']): void {
    const progress = this.#ctx.progress;
    const maxRounds = defined({ maxRounds: this.#maxRounds });
    if (e.type === 'tool_use') progress({ tool: e.name, round: this.rounds + 1, ...maxRounds });
    else if (e.type === 'started' && e.model !== undefined) progress({ model: e.model });
    else if (e.type === 'turn_diff') {
      for (const f of e.diff.files) this.#files.add(f.path);
      progress({ filesChanged: this.#files.size });
    } else if (e.type === 'usage') {
      this.#charge(0, this.#turn.during(e));
      progress({ costUsd: this.costUsd });
    } else if (e.type === 'turn_complete' || e.type === 'ended') {
      // An `ended` that closes a turn carries that turn's figures (numTurns says so).
      const turns = e.type === 'turn_complete' || e.numTurns !== undefined ? 1 : 0;
      this.rounds += turns;
      this.#charge(turns, this.#turn.end(e));
      progress({ round: this.rounds, costUsd: this.costUsd, ...maxRounds });
    } else if (e.type === 'error') {
      // A notice (the CLI retrying a failed model request, a denied ask) is shown as it happens;
      // a failure that ends the turn reaches the verdict instead, and the next turn's spending
      // starts from nothing.
      if (e.transient === true) progress({ notice: e.message });
      else this.#turn.reset();
    }
  }

  #charge(turns: number, spent: { tokens: number; costUsd: number }): void {
    this.costUsd = Math.round((this.costUsd + spent.costUsd) * 1e8) / 1e8;
    this.#ctx.charge({ turns, ...spent });
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
