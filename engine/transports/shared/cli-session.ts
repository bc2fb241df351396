import type { Effort, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import { curatedMcpAsk, type CuratedMcp, type ToolAsk } from '../../posture/index.js';
import type { AgentEvent, AgentSession } from '../types.js';
import { describeCliExit, type CliExit, type CliProcess } from './cli-process.js';
import { EventChannel } from './event-channel.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { gateAsk } from './posture-gate.js';
import { PROVIDER_CODES, type ProviderCode } from './provider-failure.js';
import { formatSeconds, type Tuning } from './tuning.js';

type TurnComplete = Extract<AgentEvent, { type: 'turn_complete' }>;
type Decision = { allow: boolean; reason?: string };

/**
 * Who answered an ask neo settled without the driver: the posture gate by its rule, neo's own
 * interrupt (it cancels what is still open), or the CLI that withdrew its ask.
 */
export type OwnAnswerer = 'posture' | 'interrupt' | 'cli';

/** Everything a CLI-backed session shares with its adapter. */
export interface CliSessionInit {
  /** The backend id (claude-code, copilot …), used in messages. */
  backendId: string;
  proc: CliProcess;
  posture: Posture;
  tuning: Tuning;
  /** The session's folder: the paths of its asks are judged against it. */
  cwd: string;
  /** The CLI's own configuration in that folder (its descriptor's `projectConfig`), never edited below full. */
  agentConfig?: readonly string[];
  /** The session's provisioned MCP servers (its plan's `curatedMcp`): their tools' asks are judged by it. */
  curatedMcp?: CuratedMcp;
}

/**
 * The lifecycle every CLI adapter shares: JSON lines in, normalized events out, one turn at a
 * time, pending clarifications, the idle watchdog, exit detection and an idempotent stop that
 * takes the whole process group down. Adapters implement the protocol in handleMessage().
 *
 * Error levels: a `transient` error is a notice (the turn goes on), a plain error ends the turn,
 * a `fatal` error ends the session and the stream.
 */
export abstract class CliSession implements AgentSession {
  readonly events: EventChannel<AgentEvent>;
  protected readonly backendId: string;
  protected readonly proc: CliProcess;
  protected readonly tuning: Tuning;
  protected posture: Posture;
  protected readonly cwd: string;
  protected readonly agentConfig: readonly string[];
  readonly #curatedMcp: CuratedMcp | undefined;
  /** Asks waiting on the driver. */
  readonly #clarifications = new Map<string, { ask: ToolAsk; respond: (decision: Decision) => void }>();
  /** Asks the posture gate is still judging. */
  readonly #gating = new Map<string, ToolAsk>();
  readonly #watchdog: IdleWatchdog;
  #turnActive = false;
  #finished = false;
  #stopping: Promise<void> | undefined;
  #lastText = '';
  #turnText = '';
  /** When the CLI's current run of retries against a provider it cannot reach began. */
  #unreachableSince: number | undefined;

  constructor(init: CliSessionInit) {
    this.events = new EventChannel<AgentEvent>();
    this.backendId = init.backendId;
    this.proc = init.proc;
    this.tuning = init.tuning;
    this.posture = init.posture;
    this.cwd = init.cwd;
    this.agentConfig = init.agentConfig ?? [];
    this.#curatedMcp = init.curatedMcp;
    this.#watchdog = new IdleWatchdog(init.tuning.idleTimeoutMs, () => this.#onIdle());
    init.proc.onLine((line) => this.#onLine(line));
    void init.proc.exited.then((exit) => this.#onExit(exit));
  }

  abstract sendGuidance(text: string, switchTo?: { model?: string; effort?: Effort }): Promise<void>;
  abstract setPosture(posture: Posture): Promise<void>;
  abstract interrupt(): Promise<void>;

  /** Handles one parsed stdout message. */
  protected abstract handleMessage(message: Record<string, unknown>): void;

  /** Called once when the session is going away (before the process is terminated). */
  protected onClosing(): void {}

  /** Emits anything the adapter buffered (streamed chunks) before a turn-level event. */
  protected flushPending(): void {}

  get turnActive(): boolean {
    return this.#turnActive;
  }

  get finished(): boolean {
    return this.#finished || this.#stopping !== undefined;
  }

  async answer(clarificationId: string, decision: Decision): Promise<void> {
    const pending = this.#clarifications.get(clarificationId);
    if (pending === undefined) {
      throw new NeoError(
        'TRANSPORT_UNKNOWN_CLARIFICATION',
        `${this.backendId} has no pending clarification ${clarificationId}`,
        {
          hint: 'it was already answered, withdrawn by the agent, or belongs to another session',
        },
      );
    }
    this.#clarifications.delete(clarificationId);
    pending.respond(decision);
    this.#rearm();
  }

  /** Ends the session: closes the stream (no `ended` event), then takes the process group down. */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  protected emit(event: AgentEvent): void {
    if (this.#finished) return;
    if (event.type === 'text') {
      this.#lastText = event.text;
      this.#turnText = event.text;
    }
    this.events.push(event);
  }

  /** Marks a turn as running (the watchdog starts counting). */
  protected beginTurn(): void {
    this.#turnActive = true;
    this.#turnText = '';
    this.#unreachableSince = undefined;
    this.#rearm();
  }

  /** Ends the turn; its text defaults to the turn's last `text` event. */
  protected completeTurn(event: Omit<TurnComplete, 'type'>): void {
    this.flushPending();
    if (event.text === undefined && this.#turnText !== '') event = { ...event, text: this.#turnText };
    if (event.text !== undefined && event.text !== '') this.#lastText = event.text;
    this.#turnActive = false;
    // An ask still open when the turn ends was abandoned by the agent.
    this.#clarifications.clear();
    this.#rearm();
    this.emit({ type: 'turn_complete', ...event });
  }

  /** The turn failed; the session can take another turn. */
  protected failTurn(code: string, message: string, withStderr = false): void {
    this.flushPending();
    this.#turnActive = false;
    this.#clarifications.clear();
    this.#rearm();
    this.emit(this.#error(code, message, withStderr));
  }

  /** A notice: the turn goes on. */
  protected notice(code: string, message: string): void {
    this.flushPending();
    this.emit({ type: 'error', code, message, transient: true });
  }

  /**
   * The CLI says a model request failed and it will retry by itself. A rejected key (401/403)
   * is not waited out: the turn fails at once with `failure` and `abandon` stops the CLI's
   * retrying (an interrupt; the adapter drops the end of the interrupted turn). A provider the
   * CLI cannot reach is given up the same way once it has failed for `unreachableGiveUpMs`.
   * Anything else is a notice, shown live while the CLI retries.
   */
  protected providerRetry(
    code: ProviderCode | undefined,
    notice: string,
    failure: () => string,
    abandon: () => void,
  ): void {
    if (!this.#turnActive) return;
    const unreachable = code === PROVIDER_CODES.unreachable;
    if (!unreachable) this.#unreachableSince = undefined;
    else this.#unreachableSince ??= Date.now();
    const givenUp =
      unreachable && Date.now() - (this.#unreachableSince ?? Date.now()) >= this.tuning.unreachableGiveUpMs;
    if (code === PROVIDER_CODES.unauthenticated || givenUp) {
      this.failTurn(code!, failure());
      abandon();
      return;
    }
    this.notice('TRANSPORT_MODEL_RETRY', notice);
  }

  /** The session is over: reports, then tears the process group down and ends the stream. */
  protected fatal(code: string, message: string, withStderr = true): void {
    if (this.#finished) return;
    this.flushPending();
    this.emit({ ...this.#error(code, message, withStderr), fatal: true });
    this.#finish();
    void this.proc.terminate(this.tuning.killGraceMs);
  }

  /** Emits a clarify event; `respond` is called once with the driver's decision. */
  protected raiseClarification(
    clarificationId: string,
    ask: ToolAsk,
    input: unknown,
    respond: (decision: Decision) => void,
  ): void {
    this.flushPending();
    this.#clarifications.set(clarificationId, { ask, respond });
    this.#rearm();
    this.emit({ type: 'clarify', clarificationId, toolName: ask.toolName, input, ask });
  }

  /**
   * Answers one permission ask the adapter has read (a provisioned MCP server's tool judged by
   * its entry, curatedMcpAsk): the posture gate decides first
   * (engine/posture decideAsk, paths resolved under the session's folder); an allow or a deny is
   * answered at once and recorded as a `gate_decision`, anything else goes to the driver as a
   * clarification. A deny's reason, prefixed `neo:`, is what the agent is told.
   */
  protected async answerAsk(
    clarificationId: string,
    read: ToolAsk,
    input: unknown,
    respond: (decision: Decision) => void,
  ): Promise<void> {
    const ask = curatedMcpAsk(read, this.#curatedMcp);
    const posture = this.posture;
    this.#gating.set(clarificationId, ask);
    const gate = await gateAsk(posture, ask, this.cwd, this.agentConfig);
    // Withdrawn or cancelled while the gate judged it: that answer is already on record.
    if (!this.#gating.delete(clarificationId) || this.finished) return;
    if (gate.kind === 'ask') return this.raiseClarification(clarificationId, ask, input, respond);
    respond(this.recordOwnAnswer(clarificationId, ask, gate.kind === 'allow', gate.reason));
  }

  /**
   * The one place an ask answered without the driver is recorded, as a `gate_decision`: the
   * posture gate's verdict or an ask kind neo always refuses (`by` posture; a deny is also a
   * TRANSPORT_POSTURE_DENIED notice), or an ask closed unanswered (withdrawClarification).
   * Returns the decision to send back.
   */
  protected recordOwnAnswer(
    clarificationId: string,
    ask: ToolAsk,
    allow: boolean,
    reason: string,
    by: OwnAnswerer = 'posture',
  ): Decision {
    this.emit({
      type: 'gate_decision',
      clarificationId,
      toolName: ask.toolName,
      ask,
      allow,
      reason,
      posture: this.posture,
      ...(by === 'posture' ? {} : { by }),
    });
    if (!allow && by === 'posture') this.notice('TRANSPORT_POSTURE_DENIED', `denied ${ask.toolName}: ${reason}`);
    return allow ? { allow: true } : { allow: false, reason: `neo: ${reason}` };
  }

  /**
   * An open ask (at the gate or waiting on the driver) closes unanswered: the CLI withdrew it
   * (`cli`, recorded as "withdrawn") or neo's interrupt cancelled it (`interrupt`, "cancelled").
   * It is recorded like any answer; false when no such ask was open.
   */
  protected withdrawClarification(clarificationId: string, by: 'cli' | 'interrupt'): boolean {
    const ask = this.#gating.get(clarificationId) ?? this.#clarifications.get(clarificationId)?.ask;
    if (ask === undefined) return false;
    this.#gating.delete(clarificationId);
    this.#clarifications.delete(clarificationId);
    this.#rearm();
    this.recordOwnAnswer(clarificationId, ask, false, by === 'cli' ? 'withdrawn' : 'cancelled', by);
    return true;
  }

  protected pendingClarifications(): string[] {
    return [...this.#clarifications.keys()];
  }

  /** Throws when the session can no longer take commands. */
  protected assertOpen(operation: string): void {
    if (this.finished)
      throw new NeoError('TRANSPORT_SESSION_CLOSED', `${this.backendId}: cannot ${operation}, the session has ended`);
  }

  #error(code: string, message: string, withStderr: boolean): Extract<AgentEvent, { type: 'error' }> {
    const tail = withStderr ? this.proc.stderrTail() : '';
    return tail === '' ? { type: 'error', code, message } : { type: 'error', code, message, stderrTail: tail };
  }

  #rearm(): void {
    this.#watchdog.armed = this.#turnActive && this.#clarifications.size === 0 && !this.finished;
  }

  #onLine(line: string): void {
    if (this.#finished) return;
    this.#watchdog.touch();
    const trimmed = line.trim();
    if (trimmed === '') return;
    let message: unknown;
    try {
      message = JSON.parse(trimmed);
    } catch {
      this.notice(
        'TRANSPORT_MALFORMED_LINE',
        `${this.backendId} printed a line that is not JSON; skipped it: ${clip(trimmed)}`,
      );
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.notice(
        'TRANSPORT_MALFORMED_LINE',
        `${this.backendId} printed JSON that is not an object; skipped it: ${clip(trimmed)}`,
      );
      return;
    }
    this.handleMessage(message as Record<string, unknown>);
  }

  #onIdle(): void {
    this.fatal(
      'TRANSPORT_IDLE_TIMEOUT',
      `${this.backendId} sent nothing for ${formatSeconds(this.tuning.idleTimeoutMs)} during a turn; stopped it`,
    );
  }

  #onExit(exit: CliExit): void {
    if (this.#finished || this.#stopping !== undefined) return;
    if (!this.#turnActive && exit.exitCode === 0) {
      // The agent closed the session itself, cleanly, between turns.
      this.events.push({ type: 'ended', ok: true, text: this.#lastText });
      this.#finish();
      void this.proc.terminate(this.tuning.killGraceMs);
      return;
    }
    const how = describeCliExit(exit);
    const when = this.#turnActive ? 'mid-turn' : 'between turns';
    this.fatal('TRANSPORT_EXITED', `${this.backendId} exited ${when} (${how})`);
  }

  #finish(): void {
    this.#finished = true;
    this.#watchdog.dispose();
    this.#clarifications.clear();
    this.onClosing();
    this.events.close();
  }

  /** stop(): the driver ends the session, so no `ended` event — the stream just closes. */
  async #shutdown(): Promise<void> {
    const wasFinished = this.#finished;
    this.#watchdog.dispose();
    if (!wasFinished) this.#finish();
    await this.proc.terminate(this.tuning.killGraceMs);
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
