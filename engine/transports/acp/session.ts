import type { Effort, Posture } from '../../definitions/index.js';
import { defined } from '../../util/defined.js';
import { NeoError, errorMessage } from '../../util/errors.js';
import type { StartSessionOptions } from '../types.js';
import { readAcpAsk } from './ask.js';
import { AcpFileSystem } from './client-fs.js';
import { currentModel, effortSwitch, modelSwitch, readChoices, type AcpChoices, type Switch } from './config.js';
import { acpMcpServers, acpProvisionReport, type AcpProvisionReport } from './mcp.js';
import { resolveModeId, type AcpMode } from './modes.js';
import { CANCELLED_OUTCOME, permissionOutcome } from './permission.js';
import { promptErrorDetail, stderrModelFailure } from './agent-notices.js';
import { UpdateTranslator } from './updates.js';
import { firstPrompt, initializeAgent, openingFailure } from './opening.js';
import {
  CliProcess,
  CliSession,
  CumulativeCost,
  roundUsd,
  JsonRpcError,
  JsonRpcPeer,
  RPC_METHOD_NOT_FOUND,
  planLaunch,
  postureTarget,
  handshake,
  providerCode,
  providerFailureMessage,
  type LaunchPlan,
  type ProviderCode,
  type Tuning,
} from '../shared/index.js';

type Json = Record<string, unknown>;

/** How long a half-streamed message may sit in the buffer when the agent pauses. */
const CHUNK_FLUSH_MS = 200;

/**
 * A session with any Agent Client Protocol agent (JSON-RPC 2.0 over stdio). Each turn is one
 * session/prompt request whose response closes the turn; guidance sent mid-turn waits for it.
 */
export class AcpSession extends CliSession {
  readonly #rpc: JsonRpcPeer;
  readonly #options: StartSessionOptions;
  readonly #updates: UpdateTranslator;
  readonly #cost = new CumulativeCost();
  #costSeen = 0;
  readonly #fs: AcpFileSystem;
  readonly #permissionWaiters = new Map<string, (outcome: Json) => void>();
  readonly #queue: Array<{ text: string; switchTo: { model?: string; effort?: Effort } | undefined }> = [];
  #sessionId = '';
  #modes: AcpMode[] = [];
  #choices: AcpChoices = { configOptions: [], models: undefined };
  #loading = false;
  #interrupting = false;
  /** neo failed the turn and cancelled the agent's retrying: the prompt's answer is not news. */
  #dropPromptEnd = false;
  #flushTimer: NodeJS.Timeout | undefined;

  private constructor(
    backendId: string,
    proc: CliProcess,
    options: StartSessionOptions,
    tuning: Tuning,
    plan: LaunchPlan,
  ) {
    const agentConfig = options.descriptor.projectConfig ?? [];
    super({
      backendId,
      proc,
      posture: options.posture,
      tuning,
      cwd: options.cwd,
      agentConfig,
      ...defined({ curatedMcp: options.provision?.curatedMcp }),
    });
    this.#options = options;
    this.#updates = new UpdateTranslator(backendId);
    // A confined agent's file methods run in its own sandbox, never with neo's reach.
    const box =
      plan.confined && plan.sandbox !== undefined ? { sandbox: plan.sandbox, cwd: plan.cwd, env: plan.env } : undefined;
    this.#fs = new AcpFileSystem(options.cwd, () => this.posture, box, agentConfig);
    proc.onStderrLine((line) => this.#onStderr(line));
    this.#rpc = new JsonRpcPeer({
      send: (line) => proc.writeLine(line),
      includeVersion: true,
      onRequest: (method, params, id) => this.#onAgentRequest(method, (params ?? {}) as Json, id),
      onNotification: (method, params) => this.#onNotification(method, (params ?? {}) as Json),
    });
  }

  /** Spawns the agent, initializes, opens (or loads) the session, applies posture and model, prompts. */
  static async open(backendId: string, options: StartSessionOptions, tuning: Tuning): Promise<AcpSession> {
    const target = postureTarget(backendId, options.descriptor, options.posture);
    const plan = await planLaunch(backendId, options);
    const proc = CliProcess.spawn({ ...plan, args: [...plan.baseArgs, ...(target.args ?? [])] });
    const session = new AcpSession(backendId, proc, options, tuning, plan);
    const provision = await handshake(backendId, proc, tuning.startTimeoutMs, tuning.killGraceMs, async () => {
      const result = await session.#openSession();
      const modeId = resolveModeId(backendId, options.posture, target, options.descriptor.modes, session.#modes);
      if (modeId !== undefined && modeId !== session.#updates.currentModeId)
        await session.#rpc.request('session/set_mode', { sessionId: session.#sessionId, modeId });
      if (options.model !== undefined) await session.#switch(modelSwitch(backendId, session.#choices, options.model));
      if (options.effort !== undefined)
        await session.#switch(effortSwitch(backendId, session.#choices, options.effort));
      return result;
    });
    if (provision !== undefined) session.emit({ type: 'provision', ...provision });
    const started: { type: 'started'; externalSessionId?: string; model?: string } = {
      type: 'started',
      externalSessionId: session.#sessionId,
    };
    const model = options.model ?? currentModel(session.#choices);
    if (model !== undefined) started.model = model;
    session.emit(started);
    session.#prompt(firstPrompt(options));
    return session;
  }

  async sendGuidance(text: string, switchTo?: { model?: string; effort?: Effort }): Promise<void> {
    this.assertOpen('send guidance');
    // ACP has no mid-turn input: guidance waits for the running prompt to finish.
    if (this.turnActive) {
      this.#queue.push({ text, switchTo });
      return;
    }
    await this.#applySwitch(switchTo);
    this.#prompt(text);
  }

  async setPosture(posture: Posture): Promise<void> {
    this.assertOpen('change posture');
    const target = postureTarget(this.backendId, this.#options.descriptor, posture);
    const modeId = resolveModeId(this.backendId, posture, target, this.#options.descriptor.modes, this.#modes);
    if (modeId !== undefined) await this.#rpc.request('session/set_mode', { sessionId: this.#sessionId, modeId });
    this.posture = posture;
  }

  async interrupt(): Promise<void> {
    this.assertOpen('interrupt');
    if (!this.turnActive) return;
    this.#interrupting = true;
    this.#rpc.notify('session/cancel', { sessionId: this.#sessionId });
    // The protocol requires pending permission requests to be answered `cancelled` after a cancel.
    for (const [id, resolve] of this.#permissionWaiters) {
      this.withdrawClarification(id, 'interrupt');
      resolve(CANCELLED_OUTCOME);
    }
    this.#permissionWaiters.clear();
  }

  protected override flushPending(): void {
    for (const event of this.#updates.flush()) this.emit(event);
  }

  protected override onClosing(): void {
    this.#rpc.close(new NeoError('TRANSPORT_SESSION_CLOSED', `the ${this.backendId} session has ended`));
  }

  protected handleMessage(message: Json): void {
    if (!this.#rpc.receive(message))
      this.notice(
        'TRANSPORT_MALFORMED_LINE',
        `${this.backendId} sent a message that is not JSON-RPC: ${JSON.stringify(message).slice(0, 120)}`,
      );
  }

  async #openSession(): Promise<AcpProvisionReport | undefined> {
    const options = this.#options;
    const caps = await initializeAgent(this.#rpc, this.backendId);
    const mcp = acpMcpServers(options.provision?.mcpServers, (caps.mcpCapabilities ?? {}) as Json);
    const base = { cwd: options.cwd, mcpServers: mcp.list };
    let result: Json;
    try {
      result =
        options.resumeSessionId === undefined
          ? ((await this.#rpc.request('session/new', base)) as Json)
          : await this.#resume(options.resumeSessionId, base, caps);
    } catch (error) {
      throw openingFailure(error, this.backendId, options);
    }
    if (options.resumeSessionId === undefined) {
      if (typeof result.sessionId !== 'string')
        throw new NeoError('TRANSPORT_PROTOCOL', `${this.backendId} answered session/new without a sessionId`);
      this.#sessionId = result.sessionId;
    }
    const modes = (result.modes ?? {}) as Json;
    this.#modes = Array.isArray(modes.availableModes)
      ? (modes.availableModes as AcpMode[]).filter((m) => typeof m?.id === 'string')
      : [];
    if (typeof modes.currentModeId === 'string') this.#updates.currentModeId = modes.currentModeId;
    this.#choices = readChoices(result);
    return options.provision === undefined ? undefined : acpProvisionReport(mcp, options.provision);
  }

  /** session/load (history replayed as updates, which neo drops) or session/resume. */
  async #resume(sessionId: string, base: Json, caps: Json): Promise<Json> {
    this.#sessionId = sessionId;
    const sessionCaps = (caps.sessionCapabilities ?? {}) as Json;
    if (caps.loadSession === true) {
      this.#loading = true;
      try {
        return ((await this.#rpc.request('session/load', { ...base, sessionId })) ?? {}) as Json;
      } finally {
        this.#loading = false;
      }
    }
    if (sessionCaps.resume !== undefined && sessionCaps.resume !== null && sessionCaps.resume !== false) {
      return ((await this.#rpc.request('session/resume', { ...base, sessionId })) ?? {}) as Json;
    }
    throw new NeoError(
      'TRANSPORT_RESUME_UNSUPPORTED',
      `${this.backendId} cannot resume sessions (it advertises neither loadSession nor sessionCapabilities.resume)`,
    );
  }

  async #applySwitch(switchTo: { model?: string; effort?: Effort } | undefined): Promise<void> {
    if (switchTo?.model !== undefined) await this.#switch(modelSwitch(this.backendId, this.#choices, switchTo.model));
    if (switchTo?.effort !== undefined)
      await this.#switch(effortSwitch(this.backendId, this.#choices, switchTo.effort));
  }

  async #switch(change: Switch): Promise<void> {
    const result = (await this.#rpc.request(change.method, {
      sessionId: this.#sessionId,
      ...change.params,
    })) as Json | null;
    if (result !== null && Array.isArray(result.configOptions))
      this.#choices = { ...this.#choices, configOptions: result.configOptions as Json[] };
  }

  #prompt(text: string): void {
    this.beginTurn();
    this.#rpc.request('session/prompt', { sessionId: this.#sessionId, prompt: [{ type: 'text', text }] }).then(
      (result) => this.#onPromptDone((result ?? {}) as Json),
      (error: unknown) => {
        if (this.finished) return;
        const errorLine = this.#updates.takePendingError();
        for (const event of [...this.#updates.flush(), ...this.#updates.settleTools()]) this.emit(event);
        this.#interrupting = false;
        const failure = this.#updates.takeFailure();
        if (!this.#takeDropped()) {
          const detail = promptErrorDetail(error, errorLine);
          const code = failure?.code ?? providerCode(undefined, detail);
          if (code === undefined)
            this.failTurn('TRANSPORT_TURN_FAILED', `${this.backendId} turn failed: ${detail}`, true);
          else this.failTurn(code, this.#providerMessage(code, failure?.detail ?? detail), true);
        }
        void this.#drainQueue();
      },
    );
  }

  #onPromptDone(result: Json): void {
    if (this.finished) return;
    for (const event of [...this.#updates.flush(), ...this.#updates.settleTools()]) this.emit(event);
    const interrupted = this.#interrupting || result.stopReason === 'cancelled';
    this.#interrupting = false;
    if (this.#updates.costTotal !== undefined) this.#cost.observe(this.#updates.costTotal);
    const event: Parameters<CliSession['completeTurn']>[0] = {};
    const cost = this.#cost.takeTurnDelta();
    if (cost !== undefined) event.costUsd = cost;
    const text = this.#updates.takeTurnText();
    if (text !== '') event.text = text;
    if (interrupted) event.interrupted = true;
    // An agent that reports a provider failure as text still ends its turn normally.
    const failure = this.#updates.takeFailure();
    if (this.#takeDropped()) {
      // The turn was failed already.
    } else if (failure !== undefined && !interrupted) {
      this.failTurn(failure.code, this.#providerMessage(failure.code, failure.detail));
    } else if (result.stopReason === 'refusal') {
      this.failTurn('TRANSPORT_TURN_FAILED', `${this.backendId} refused the request`);
    } else {
      this.completeTurn(event);
    }
    void this.#drainQueue();
  }

  #providerMessage(code: ProviderCode, detail: string): string {
    const authHint = this.#options.descriptor.command?.authHint;
    return providerFailureMessage(this.backendId, code, detail, authHint === undefined ? {} : { authHint });
  }

  #takeDropped(): boolean {
    const dropped = this.#dropPromptEnd;
    this.#dropPromptEnd = false;
    return dropped;
  }

  /** A CLI that logs its failed model requests on stderr (OpenCode): shown live, and judged like any retry. */
  #onStderr(line: string): void {
    const said = stderrModelFailure(line);
    if (said === undefined || this.finished) return;
    const code = providerCode(undefined, said);
    this.providerRetry(
      code,
      `${this.backendId}: a model request failed: ${said}`,
      () => this.#providerMessage(code!, said),
      () => {
        this.#dropPromptEnd = true;
        this.#rpc.notify('session/cancel', { sessionId: this.#sessionId });
      },
    );
  }

  async #drainQueue(): Promise<void> {
    const next = this.#queue.shift();
    if (next === undefined || this.finished) return;
    try {
      await this.#applySwitch(next.switchTo);
    } catch (error) {
      this.notice(error instanceof NeoError ? error.code : 'TRANSPORT_TURN_FAILED', errorMessage(error));
    }
    this.#prompt(next.text);
  }

  /**
   * Message chunks are joined into one text event; when the agent goes quiet mid-message
   * (thinking, or stalled) what it said so far is emitted after a short pause.
   */
  #scheduleFlush(): void {
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      if (!this.finished) for (const event of this.#updates.flush()) this.emit(event);
    }, CHUNK_FLUSH_MS);
    this.#flushTimer.unref();
  }

  #onNotification(method: string, params: Json): void {
    if (method !== 'session/update' || this.#loading) return;
    if (params.sessionId !== undefined && params.sessionId !== this.#sessionId) return;
    const update = (params.update ?? {}) as Json;
    for (const event of this.#updates.translate(update)) this.emit(event);
    if (update.sessionUpdate === 'usage_update') this.#reportSpending();
    this.#scheduleFlush();
    if (this.#updates.configOptions !== undefined) {
      this.#choices = { ...this.#choices, configOptions: this.#updates.configOptions };
      this.#updates.configOptions = undefined;
    }
  }

  /**
   * A `usage_update` whose running cost grew during a turn: the growth is spent now, reported so a
   * budget can stop the turn (the turn's own delta still comes with its end).
   */
  #reportSpending(): void {
    const total = this.#updates.costTotal;
    if (total === undefined || !Number.isFinite(total)) return;
    const grown = roundUsd(total - this.#costSeen);
    this.#costSeen = Math.max(this.#costSeen, total);
    if (grown > 0 && this.turnActive) this.emit({ type: 'usage', costUsd: grown });
  }

  async #onAgentRequest(method: string, params: Json, id: number | string): Promise<unknown> {
    switch (method) {
      case 'session/request_permission':
        return this.#permission(params, String(id));
      case 'fs/read_text_file':
        return this.#fs.read(params);
      case 'fs/write_text_file':
        return this.#fs.write(params);
      default:
        throw new JsonRpcError(RPC_METHOD_NOT_FOUND, `neo does not offer ${method}`);
    }
  }

  #permission(params: Json, rpcId: string): Promise<Json> {
    const toolCall = (params.toolCall ?? {}) as Json;
    // What the agent said about the call before asking (announcing the ask merges the ask into it).
    const seen = typeof toolCall.toolCallId === 'string' ? this.#updates.tools.get(toolCall.toolCallId) : undefined;
    const known = seen === undefined ? undefined : { kind: seen.kind, title: seen.title, rawInput: seen.rawInput };
    for (const event of this.#updates.flush()) this.emit(event);
    for (const event of this.#updates.announce(toolCall)) this.emit(event);
    const ask = readAcpAsk(this.backendId, toolCall, known, this.#options.descriptor.askShape?.commandFrom);
    const clarificationId = `perm_${rpcId}`;
    const input = toolCall.rawInput ?? known?.rawInput ?? { title: toolCall.title ?? known?.title };
    return new Promise((resolve) => {
      this.#permissionWaiters.set(clarificationId, resolve);
      void this.answerAsk(clarificationId, ask, input, (decision) => {
        this.#permissionWaiters.delete(clarificationId);
        resolve(permissionOutcome(params.options, decision.allow));
      });
    });
  }
}
