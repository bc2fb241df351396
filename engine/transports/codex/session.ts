import type { Effort, Posture } from '../../definitions/index.js';
import { NeoError, errorMessage } from '../../util/errors.js';
import { packageVersion } from '../../util/package-root.js';
import type { StartSessionOptions } from '../types.js';
import type { ToolAsk } from '../../posture/index.js';
import { readCodexAsk } from './ask.js';
import { codexFailure, refusedToolCall } from './errors.js';
import { completedItemEvents, toolUseOf } from './items.js';
import { codexEffort, codexPosture, type CodexPosture } from './posture.js';
import { TokenUsageTracker } from './usage.js';
import {
  CliProcess,
  CliSession,
  usdForUsage,
  JsonRpcError,
  JsonRpcPeer,
  RPC_METHOD_NOT_FOUND,
  planLaunch,
  postureTarget,
  handshake,
  providerFailureMessage,
  type Tuning,
} from '../shared/index.js';
import { defined } from '../../util/defined.js';
import { wireMcpServers } from '../shared/mcp-wire.js';
import { mcpOverrideArgs } from './config-overrides.js';

type Json = Record<string, unknown>;
type Decision = { allow: boolean; reason?: string };

/**
 * A Codex session over `codex app-server` (JSON-RPC over JSONL, no "jsonrpc" field): one
 * thread, one turn/start per turn, turn/steer for mid-turn guidance, approvals as clarify.
 */
export class CodexSession extends CliSession {
  readonly #rpc: JsonRpcPeer;
  readonly #options: StartSessionOptions;
  readonly #usage = new TokenUsageTracker();
  readonly #toolItems = new Map<string, Json>();
  #threadId = '';
  #turnId: string | undefined;
  #model: string | undefined;
  #codexPosture: CodexPosture;
  /** Overrides for the next turn/start (they persist on the thread once sent). */
  #next: { model?: string; effort?: string; posture?: CodexPosture } = {};
  #interrupting = false;
  #turnError: Json | undefined;
  /** A turn neo failed and interrupted while codex retried: its turn/completed is not news. */
  #abandonedTurnId: string | undefined;
  /** Tool calls codex refused itself, numbered for their ids. */
  #refusedCalls = 0;

  private constructor(
    backendId: string,
    proc: CliProcess,
    options: StartSessionOptions,
    tuning: Tuning,
    posture: CodexPosture,
  ) {
    super({
      backendId,
      proc,
      posture: options.posture,
      tuning,
      cwd: options.cwd,
      ...defined({ curatedMcp: options.provision?.curatedMcp }),
    });
    this.#options = options;
    this.#codexPosture = posture;
    this.#model = options.model;
    this.#rpc = new JsonRpcPeer({
      send: (line) => proc.writeLine(line),
      includeVersion: false,
      onRequest: (method, params, id) => this.#onServerRequest(method, (params ?? {}) as Json, id),
      onNotification: (method, params) => this.#onNotification(method, (params ?? {}) as Json),
    });
    proc.onStderrLine((line) => this.#onStderr(line));
  }

  /** A tool call codex failed itself is only in its log: recorded as a call and its failed result. */
  #onStderr(line: string): void {
    const refused = refusedToolCall(line);
    if (refused === undefined || !this.turnActive) return;
    const id = `codex-refused-${++this.#refusedCalls}`;
    this.emit({ type: 'tool_use', id, name: refused.name, input: {} });
    this.emit({ type: 'tool_result', id, output: refused.why, isError: true });
  }

  /** Spawns `codex app-server`, initializes, starts or resumes the thread, and starts turn 1. */
  static async open(backendId: string, options: StartSessionOptions, tuning: Tuning): Promise<CodexSession> {
    const target = postureTarget(backendId, options.descriptor, options.posture);
    const posture = codexPosture(options.posture, target);
    const plan = await planLaunch(backendId, options);
    const mcp = mcpOverrideArgs(wireMcpServers(options.provision?.mcpServers ?? {}));
    const proc = CliProcess.spawn({ ...plan, args: [...plan.baseArgs, ...(target.args ?? []), ...mcp] });
    const session = new CodexSession(backendId, proc, options, tuning, posture);
    const provision = await handshake(backendId, proc, tuning.startTimeoutMs, tuning.killGraceMs, () =>
      session.#openThread(),
    );
    if (provision !== undefined) session.emit({ type: 'provision', ...provision });
    const started: { type: 'started'; externalSessionId?: string; model?: string } = {
      type: 'started',
      externalSessionId: session.#threadId,
    };
    if (session.#model !== undefined) started.model = session.#model;
    session.emit(started);
    session.#startTurn(options.brief, {
      ...(options.effort === undefined ? {} : { effort: codexEffort(options.effort) }),
    });
    return session;
  }

  async sendGuidance(text: string, switchTo?: { model?: string; effort?: Effort }): Promise<void> {
    this.assertOpen('send guidance');
    if (switchTo?.model !== undefined) this.#next.model = switchTo.model;
    if (switchTo?.effort !== undefined) this.#next.effort = codexEffort(switchTo.effort);
    if (this.turnActive && this.#turnId !== undefined) {
      await this.#rpc.request('turn/steer', {
        threadId: this.#threadId,
        input: textInput(text),
        expectedTurnId: this.#turnId,
      });
      return;
    }
    this.#startTurn(text, {});
  }

  async setPosture(posture: Posture): Promise<void> {
    this.assertOpen('change posture');
    const next = codexPosture(posture, postureTarget(this.backendId, this.#options.descriptor, posture));
    // Codex takes posture per turn; the gate applies it to asks at once.
    this.#next.posture = next;
    this.#codexPosture = next;
    this.posture = posture;
  }

  async interrupt(): Promise<void> {
    this.assertOpen('interrupt');
    if (!this.turnActive || this.#turnId === undefined) return;
    this.#interrupting = true;
    await this.#rpc.request('turn/interrupt', { threadId: this.#threadId, turnId: this.#turnId });
  }

  protected override onClosing(): void {
    this.#rpc.close(new NeoError('TRANSPORT_SESSION_CLOSED', 'the codex session has ended'));
  }

  protected handleMessage(message: Json): void {
    if (!this.#rpc.receive(message))
      this.notice(
        'TRANSPORT_MALFORMED_LINE',
        `codex sent a message that is not JSON-RPC: ${JSON.stringify(message).slice(0, 120)}`,
      );
  }

  async #openThread(): Promise<{ applied: string[]; ignored: string[]; reasons?: Record<string, string> } | undefined> {
    const options = this.#options;
    await this.#rpc.request('initialize', {
      clientInfo: { name: 'neo', title: 'neo', version: packageVersion() },
      capabilities: { experimentalApi: false, optOutNotificationMethods: ['item/agentMessage/delta'] },
    });
    this.#rpc.notify('initialized');
    const params: Json = {
      cwd: options.cwd,
      approvalPolicy: this.#codexPosture.approvalPolicy,
      sandbox: this.#codexPosture.sandbox,
    };
    if (options.model !== undefined) params.model = options.model;
    const applied: string[] = [];
    const ignored: string[] = [];
    const instructions = [options.appendSystemPrompt, options.provision?.instructions].filter(
      (p): p is string => p !== undefined && p.trim() !== '',
    );
    if (instructions.length > 0) params.developerInstructions = instructions.join('\n\n');
    if (options.provision?.instructions !== undefined && options.provision.instructions.trim() !== '')
      applied.push('instructions');
    const servers = options.provision?.mcpServers ?? {};
    // The servers themselves went on the command line (config-overrides.ts).
    applied.push(...Object.keys(servers).map((name) => `mcp:${name}`));
    const reasons: Record<string, string> = {};
    for (const dir of options.provision?.skillDirs ?? []) {
      ignored.push(`skill:${dir}`);
      reasons[`skill:${dir}`] = 'Codex has no per-session skills folder (it reads skills from its own home only)';
    }
    const result = (
      options.resumeSessionId === undefined
        ? await this.#rpc.request('thread/start', params)
        : await this.#rpc.request('thread/resume', { ...params, threadId: options.resumeSessionId })
    ) as Json;
    const thread = (result.thread ?? {}) as Json;
    if (typeof thread.id !== 'string')
      throw new NeoError('TRANSPORT_PROTOCOL', 'codex answered thread/start without a thread id');
    this.#threadId = thread.id;
    if (typeof result.model === 'string') this.#model = result.model;
    if (options.provision === undefined) return undefined;
    return Object.keys(reasons).length === 0 ? { applied, ignored } : { applied, ignored, reasons };
  }

  #startTurn(text: string, overrides: { effort?: string }): void {
    const params: Json = { threadId: this.#threadId, input: textInput(text) };
    const model = this.#next.model;
    const effort = this.#next.effort ?? overrides.effort;
    if (model !== undefined) params.model = model;
    if (effort !== undefined) params.effort = effort;
    if (this.#next.posture !== undefined) {
      params.approvalPolicy = this.#next.posture.approvalPolicy;
      params.sandboxPolicy = this.#next.posture.sandboxPolicy;
    }
    this.#next = {};
    if (model !== undefined) this.#model = model;
    this.#turnId = undefined;
    this.#turnError = undefined;
    this.beginTurn();
    this.#rpc.request('turn/start', params).then(
      (result) => {
        const turn = ((result ?? {}) as Json).turn as Json | undefined;
        if (typeof turn?.id === 'string') this.#turnId ??= turn.id;
      },
      (error: unknown) => {
        if (!this.finished)
          this.failTurn('TRANSPORT_TURN_FAILED', `codex refused turn/start: ${errorMessage(error)}`, true);
      },
    );
  }

  #onNotification(method: string, params: Json): void {
    switch (method) {
      case 'turn/started': {
        const turn = params.turn as Json | undefined;
        if (typeof turn?.id === 'string') this.#turnId = turn.id;
        return;
      }
      case 'item/started': {
        const item = params.item as Json | undefined;
        const use = item === undefined ? undefined : toolUseOf(item);
        if (item === undefined || use === undefined) return;
        this.#toolItems.set(use.id, item);
        this.emit(use);
        return;
      }
      case 'item/completed': {
        const item = params.item as Json | undefined;
        if (item === undefined) return;
        const use = toolUseOf(item);
        if (use !== undefined && !this.#toolItems.has(use.id)) this.emit(use);
        if (typeof item.id === 'string') this.#toolItems.delete(item.id);
        for (const event of completedItemEvents(item)) this.emit(event);
        return;
      }
      case 'thread/tokenUsage/updated': {
        // One update per model call: reported as it comes, so a budget can stop the turn.
        const spent = this.#usage.observe(params.tokenUsage);
        if (spent === undefined || !this.turnActive) return;
        const cost = usdForUsage(this.#options.descriptor.pricing, this.#model, spent);
        this.emit({ type: 'usage', usage: spent, ...defined({ costUsd: cost }) });
        return;
      }
      case 'error':
        return this.#onError(params);
      case 'turn/completed':
        return this.#onTurnCompleted((params.turn ?? {}) as Json);
      default:
        // thread/status/changed, warnings, deltas, and methods newer than neo.
        return;
    }
  }

  #onError(params: Json): void {
    const error = (params.error ?? {}) as Json;
    if (params.willRetry !== true) {
      this.#turnError = error;
      return;
    }
    const failure = codexFailure(error);
    const turnId = this.#turnId;
    this.providerRetry(
      failure.code,
      `codex is retrying the model request: ${failure.detail}`,
      () => this.#failureMessage(failure),
      () => {
        if (turnId === undefined) return;
        this.#abandonedTurnId = turnId;
        this.#rpc.request('turn/interrupt', { threadId: this.#threadId, turnId }).catch(() => undefined);
      },
    );
  }

  #failureMessage(failure: ReturnType<typeof codexFailure>): string {
    if (failure.code === undefined) return `codex turn failed: ${failure.detail}`;
    const authHint = this.#options.descriptor.command?.authHint;
    return providerFailureMessage(
      this.backendId,
      failure.code,
      failure.detail,
      defined({ status: failure.status, authHint }),
    );
  }

  #onTurnCompleted(turn: Json): void {
    if (turn.id !== undefined && turn.id === this.#abandonedTurnId) {
      this.#abandonedTurnId = undefined;
      this.#usage.takeTurnUsage();
      if (this.#turnId === turn.id) this.#turnId = undefined;
      return;
    }
    if (!this.turnActive) return;
    const usage = this.#usage.takeTurnUsage();
    const interrupted = this.#interrupting || turn.status === 'interrupted';
    this.#interrupting = false;
    this.#turnId = undefined;
    if (turn.status === 'failed' && !interrupted) {
      const error = (turn.error ?? this.#turnError ?? {}) as Json;
      const failure = codexFailure(error);
      this.failTurn(failure.code ?? 'TRANSPORT_TURN_FAILED', this.#failureMessage(failure));
      return;
    }
    const event: Parameters<CliSession['completeTurn']>[0] = {};
    if (usage !== undefined) {
      event.usage = usage;
      const cost = usdForUsage(this.#options.descriptor.pricing, this.#model, usage);
      if (cost !== undefined) event.costUsd = cost;
    }
    if (interrupted) event.interrupted = true;
    this.completeTurn(event);
  }

  async #onServerRequest(method: string, params: Json, id: number | string): Promise<unknown> {
    switch (method) {
      case 'item/commandExecution/requestApproval':
        return this.#approval(String(id), readCodexAsk(method, params, this.#item(params)), {
          command: params.command,
          cwd: params.cwd,
          reason: params.reason,
        });
      case 'item/fileChange/requestApproval': {
        const item = this.#item(params);
        return this.#approval(String(id), readCodexAsk(method, params, item), {
          changes: item?.changes,
          reason: params.reason,
          grantRoot: params.grantRoot,
        });
      }
      case 'item/permissions/requestApproval':
        this.recordOwnAnswer(
          String(id),
          fixedAsk(method),
          false,
          'neo grants no extra sandbox permissions (raise the posture instead)',
        );
        return { permissions: {}, scope: 'turn' };
      case 'mcpServer/elicitation/request':
        this.recordOwnAnswer(String(id), fixedAsk(method), false, 'neo answers no MCP server elicitation');
        return { action: 'decline' };
      default:
        throw new JsonRpcError(RPC_METHOD_NOT_FOUND, `neo does not handle ${method}`);
    }
  }

  /** The item an approval is about, as item/started announced it. */
  #item(params: Json): Json | undefined {
    return typeof params.itemId === 'string' ? this.#toolItems.get(params.itemId) : undefined;
  }

  #approval(clarificationId: string, ask: ToolAsk, input: Json): Promise<unknown> {
    return new Promise((resolve) => {
      void this.answerAsk(clarificationId, ask, input, (decision: Decision) =>
        resolve({ decision: decision.allow ? 'accept' : 'decline' }),
      );
    });
  }
}

/** An ask neo always refuses, as the ToolAsk its record carries. */
function fixedAsk(method: string): ToolAsk {
  return { kind: 'execute', toolName: method, paths: [] };
}

function textInput(text: string): Json[] {
  return [{ type: 'text', text, text_elements: [] }];
}
