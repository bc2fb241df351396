import type { Effort, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import type { StartSessionOptions } from '../types.js';
import { readClaudeAsk } from './ask.js';
import { buildClaudeArgs, bypassRefusal } from './argv.js';
import { ControlChannel } from './control.js';
import {
  asObject,
  assistantEvents,
  resultDetail,
  resultFailure,
  resultProviderCode,
  resultUsage,
  retryFailure,
  toolResultEvents,
} from './translate.js';
import { StreamedUsage } from './usage.js';
import {
  CliProcess,
  CliSession,
  CumulativeCost,
  planLaunch,
  postureTarget,
  handshake,
  providerFailureMessage,
  type Tuning,
} from '../shared/index.js';
import { defined } from '../../util/defined.js';

type Json = Record<string, unknown>;
type ModelInfo = {
  value?: unknown;
  resolvedModel?: unknown;
  supportsEffort?: unknown;
  supportedEffortLevels?: unknown;
};

/**
 * A Claude Code session over bidirectional stream-json with the control protocol. One process
 * serves every turn: user lines go in on stdin, `result` lines close turns, `can_use_tool`
 * control requests become clarify events.
 */
export class ClaudeCodeSession extends CliSession {
  readonly #control: ControlChannel;
  readonly #options: StartSessionOptions;
  readonly #cost = new CumulativeCost();
  readonly #streamed = new StreamedUsage();
  #models: ModelInfo[] = [];
  #model: string | undefined;
  #started = false;
  #interrupting = false;
  #apiError: string | undefined;
  /** neo failed the turn and interrupted claude's retrying: the `result` that follows is not news. */
  #dropResult = false;
  #env: NodeJS.ProcessEnv = {};

  private constructor(backendId: string, proc: CliProcess, options: StartSessionOptions, tuning: Tuning) {
    super({
      backendId,
      proc,
      posture: options.posture,
      tuning,
      cwd: options.cwd,
      ...defined({ curatedMcp: options.provision?.curatedMcp }),
    });
    this.#options = options;
    this.#model = options.model;
    this.#control = new ControlChannel((line) => proc.writeLine(line), tuning.startTimeoutMs);
  }

  /** Spawns the CLI, runs the initialize handshake, applies effort, and sends the brief. */
  static async open(backendId: string, options: StartSessionOptions, tuning: Tuning): Promise<ClaudeCodeSession> {
    const target = postureTarget(backendId, options.descriptor, options.posture);
    const plan = await planLaunch(backendId, options);
    // In neo's sandbox Claude Code is where IS_SANDBOX says it is; anywhere else neo never sets
    // it, and the user's own is not inherited (the environment is an allowlist).
    if (plan.confined) plan.env = { ...plan.env, IS_SANDBOX: '1' };
    const refusal = bypassRefusal(target.mode, plan.env, process.getuid?.());
    if (refusal !== undefined) throw new NeoError('TRANSPORT_POSTURE_REFUSED', refusal);
    const { args, provision } = buildClaudeArgs(options, target);
    const proc = CliProcess.spawn({ ...plan, args });
    const session = new ClaudeCodeSession(backendId, proc, options, tuning);
    session.#env = plan.env;
    await handshake(backendId, proc, tuning.startTimeoutMs, tuning.killGraceMs, async () => {
      const init = await session.#control.request('initialize', { hooks: null });
      session.#models = Array.isArray(init.models) ? (init.models as ModelInfo[]) : [];
      if (options.effort !== undefined) await session.#applyEffort(options.effort);
    });
    if (provision !== undefined) session.emit({ type: 'provision', ...provision });
    session.#sendUser(options.brief);
    return session;
  }

  async sendGuidance(text: string, switchTo?: { model?: string; effort?: Effort }): Promise<void> {
    this.assertOpen('send guidance');
    if (switchTo?.model !== undefined) {
      const reply = await this.#control.request('set_model', { model: switchTo.model });
      this.#model = typeof reply.model === 'string' ? reply.model : switchTo.model;
    }
    if (switchTo?.effort !== undefined) await this.#applyEffort(switchTo.effort);
    // Mid-turn, the CLI queues the line or folds it in between tool rounds.
    this.#sendUser(text);
  }

  async setPosture(posture: Posture): Promise<void> {
    this.assertOpen('change posture');
    const target = postureTarget(this.backendId, this.#options.descriptor, posture);
    const refusal = bypassRefusal(target.mode, this.#env, process.getuid?.());
    if (refusal !== undefined) throw new NeoError('TRANSPORT_POSTURE_REFUSED', refusal);
    await this.#control.request('set_permission_mode', { mode: target.mode ?? 'default' });
    this.posture = posture;
  }

  async interrupt(): Promise<void> {
    this.assertOpen('interrupt');
    if (!this.turnActive) return;
    this.#interrupting = true;
    await this.#control.request('interrupt', {});
  }

  protected override onClosing(): void {
    this.#control.closeAll(new NeoError('TRANSPORT_SESSION_CLOSED', 'the claude session has ended'));
  }

  protected handleMessage(message: Json): void {
    switch (message.type) {
      case 'control_response': {
        const response = asObject(message.response);
        if (response !== undefined) this.#control.receive(response);
        return;
      }
      case 'control_request':
        return this.#onControlRequest(message);
      case 'control_cancel_request':
        if (typeof message.request_id === 'string') this.withdrawClarification(message.request_id, 'cli');
        return;
      case 'system':
        return this.#onSystem(message);
      case 'assistant': {
        if (typeof message.error === 'string') this.#apiError = message.error;
        for (const event of assistantEvents(message)) this.emit(event);
        // Tokens as each API call streams, so a budget can stop the turn (USD arrives only with the result).
        const spent = this.turnActive ? this.#streamed.observe(message) : undefined;
        if (spent !== undefined) this.emit({ type: 'usage', usage: spent });
        return;
      }
      case 'user':
        for (const event of toolResultEvents(message)) this.emit(event);
        return;
      case 'result':
        return this.#onResult(message);
      default:
        // keep_alive, rate_limit_event, stream_event, tool_progress … and kinds newer than neo.
        return;
    }
  }

  #sendUser(text: string): void {
    const line = JSON.stringify({
      type: 'user',
      message: { role: 'user', content: text },
      parent_tool_use_id: null,
      session_id: '',
    });
    if (!this.proc.writeLine(line))
      throw new NeoError('TRANSPORT_SESSION_CLOSED', 'cannot send to claude: its stdin is closed');
    if (!this.turnActive) this.beginTurn();
  }

  async #applyEffort(effort: Effort): Promise<void> {
    const wanted = this.#model ?? 'default';
    const info =
      this.#models.find((m) => m.value === wanted || m.resolvedModel === wanted) ??
      this.#models.find((m) => m.value === 'default');
    const levels = Array.isArray(info?.supportedEffortLevels) ? info.supportedEffortLevels : [];
    if (info?.supportsEffort !== true || !levels.includes(effort)) {
      throw new NeoError(
        'TRANSPORT_EFFORT_UNSUPPORTED',
        `this claude does not advertise effort ${effort} for model ${wanted}`,
        {
          hint: levels.length > 0 ? `it advertises: ${levels.join(', ')}` : 'leave effort unset for this backend',
        },
      );
    }
    await this.#control.request('apply_flag_settings', { settings: { effortLevel: effort } });
  }

  #onSystem(message: Json): void {
    if (message.subtype === 'init') {
      if (typeof message.model === 'string') this.#model ??= message.model;
      if (!this.#started) {
        this.#started = true;
        const started: { type: 'started'; externalSessionId?: string; model?: string } = { type: 'started' };
        if (typeof message.session_id === 'string') started.externalSessionId = message.session_id;
        if (typeof message.model === 'string') started.model = message.model;
        this.emit(started);
      }
      // A queued user line starts its own turn, announced by a fresh init.
      if (!this.turnActive) this.beginTurn();
      return;
    }
    if (message.subtype === 'api_retry') this.#onApiRetry(message);
  }

  /** Claude retries a failed model request by itself (ten times over about three minutes). */
  #onApiRetry(message: Json): void {
    const { status, said, code } = retryFailure(message);
    const attempt =
      typeof message.attempt === 'number'
        ? ` (attempt ${message.attempt}${typeof message.max_retries === 'number' ? `/${message.max_retries}` : ''})`
        : '';
    const what = status !== undefined ? `HTTP ${status}` : 'no answer';
    this.providerRetry(
      code,
      `claude got ${what} from the model provider and is retrying${attempt}`,
      () =>
        providerFailureMessage(
          this.backendId,
          code!,
          `claude got ${what} (${said || 'no detail'})${attempt}`,
          defined({ status, authHint: this.#options.descriptor.command?.authHint }),
        ),
      () => {
        this.#dropResult = true;
        this.#control.request('interrupt', {}).catch(() => undefined);
      },
    );
  }

  #onControlRequest(message: Json): void {
    const requestId = message.request_id;
    const request = asObject(message.request);
    if (typeof requestId !== 'string' || request === undefined) return;
    if (request.subtype !== 'can_use_tool') {
      this.#control.refuse(requestId, `neo does not handle control request ${String(request.subtype)}`);
      return;
    }
    const input = request.input ?? {};
    const toolUseId = typeof request.tool_use_id === 'string' ? request.tool_use_id : undefined;
    const reply = (decision: { allow: boolean; reason?: string }): void => {
      const body: Json = decision.allow
        ? { behavior: 'allow', updatedInput: input }
        : { behavior: 'deny', message: decision.reason ?? 'denied by the neo driver' };
      if (toolUseId !== undefined) body.toolUseID = toolUseId;
      this.#control.respond(requestId, body);
    };
    void this.answerAsk(requestId, readClaudeAsk(request, this.#options.descriptor.editToolNames), input, reply);
  }

  #onResult(result: Json): void {
    this.#streamed.reset();
    if (typeof result.total_cost_usd === 'number') this.#cost.observe(result.total_cost_usd);
    const costUsd = this.#cost.takeTurnDelta();
    const interrupted = this.#interrupting;
    const apiError = this.#apiError;
    this.#interrupting = false;
    this.#apiError = undefined;
    if (this.#dropResult) {
      this.#dropResult = false;
      return;
    }
    // A failed login reports subtype "success" with is_error true: is_error is the signal.
    if (result.is_error === true && !interrupted) {
      const code = resultProviderCode(result, apiError);
      if (code === undefined) {
        this.failTurn('TRANSPORT_TURN_FAILED', resultFailure(result));
        return;
      }
      const status = typeof result.api_error_status === 'number' ? result.api_error_status : undefined;
      const authHint = this.#options.descriptor.command?.authHint;
      this.failTurn(
        code,
        providerFailureMessage(this.backendId, code, resultDetail(result), defined({ status, authHint })),
      );
      return;
    }
    const event: Parameters<CliSession['completeTurn']>[0] = {};
    if (typeof result.num_turns === 'number') event.numTurns = result.num_turns;
    if (costUsd !== undefined) event.costUsd = costUsd;
    const usage = resultUsage(result);
    if (usage !== undefined) event.usage = usage;
    if (typeof result.result === 'string') event.text = result.result;
    if (interrupted) event.interrupted = true;
    this.completeTurn(event);
  }
}
