/**
 * A live session with neo's own agent, behind the same AgentSession contract as the CLI
 * backends. One turn runs at a time; guidance that arrives mid-turn joins the transcript at the
 * next tool boundary (or starts the next turn if the turn ends first); the posture gate's asks
 * become clarify events answered through answer(); interrupt aborts the turn (it completes with
 * `interrupted`); stop kills every background shell, saves the transcript and closes the stream.
 */
import {
  AgentError,
  createConfiguredAgent,
  expandSkillMentions,
  providerFromSettings,
  loadAgentSettings,
  postureApprover,
  resolveModel,
  saveTranscript,
  secretRedactor,
  type Agent,
  type AgentLoopEvent,
  type AgentSettings,
  type ChecklistItem,
  type Skill,
  type UndoReport,
  type TurnResult,
} from '../../agent/index.js';
import type { Effort, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import { neoHome } from '../../util/neo-home.js';
import { EventChannel } from '../shared/event-channel.js';
import { usdForUsage } from '../shared/cost.js';
import type { AgentEvent, AgentSession, StartSessionOptions } from '../types.js';
import { sessionContext, type SessionContext } from './context.js';
import type { NeoTransportDeps } from './deps.js';
import { loadResumedTranscript } from './resume.js';
import { provisionReport } from './provision-report.js';
import { redactEvent } from './redact-event.js';
import { failureCode, stopNotice, toUsage } from './turn-figures.js';
import { checkEffort, checkPosture } from './start-checks.js';
import { agentFeatures, type AgentFeatures } from './features.js';
import { defined } from '../../util/defined.js';
import { Clarifications, type Decision } from './clarifications.js';

export class NeoSession implements AgentSession {
  readonly events = new EventChannel<AgentEvent>();
  readonly #backendId: string;
  readonly #options: StartSessionOptions;
  readonly #settings: AgentSettings;
  readonly #context: SessionContext;
  readonly #redact: (text: string) => string;
  readonly #clarifications: Clarifications;
  #agent!: Agent;
  #features!: AgentFeatures;
  #posture: Posture;
  #turn: { controller: AbortController; done: Promise<void> } | undefined;
  #pendingSwitch: { model?: string; effort?: Effort } | undefined;
  #turnCost = 0;
  #turnPriced = true;
  #stopping: Promise<void> | undefined;

  private constructor(
    backendId: string,
    options: StartSessionOptions,
    settings: AgentSettings,
    context: SessionContext,
  ) {
    this.#backendId = backendId;
    this.#options = options;
    this.#settings = settings;
    this.#context = context;
    this.#posture = options.posture;
    this.#redact = secretRedactor(settings.secrets, options.env ?? process.env, context.mcp?.secrets);
    this.#clarifications = new Clarifications(
      backendId,
      (event) => this.#emit(event),
      () => this.#posture,
    );
  }

  /** Loads settings, builds the agent (restoring a transcript on resume) and starts the first turn. */
  static async open(backendId: string, options: StartSessionOptions, deps: NeoTransportDeps = {}): Promise<NeoSession> {
    // The caller's environment when it came with the start (a CLI talking to the daemon): its keys
    // and base URLs, not the ones the daemon was started with.
    const env = options.env ?? deps.env ?? process.env;
    const home = deps.home ?? neoHome(env);
    checkPosture(backendId, options, options.posture);
    checkEffort(backendId, options, options.effort);
    const settings = await loadAgentSettings({
      cwd: options.cwd,
      home,
      env,
      ...defined({ configs: deps.configs, dotenv: deps.dotenv }),
    });
    const model = resolveModel(options.model, settings, options.descriptor);
    const saved =
      options.resumeSessionId !== undefined
        ? await loadResumedTranscript(options.resumeSessionId, options.sessionDir)
        : undefined;
    const context = await sessionContext(options, settings, home, env, deps.ripgrep);
    try {
      return await NeoSession.#begin(backendId, options, deps, { settings, env, model, saved, context });
    } catch (error) {
      // Nothing of a session that did not open keeps running: its MCP servers stop with it.
      await Promise.all([context.shells.killAll(), context.mcp?.close()]);
      throw error;
    }
  }

  static async #begin(
    backendId: string,
    options: StartSessionOptions,
    deps: NeoTransportDeps,
    made: {
      settings: AgentSettings;
      env: NodeJS.ProcessEnv;
      model: string;
      saved: Awaited<ReturnType<typeof loadResumedTranscript>> | undefined;
      context: SessionContext;
    },
  ): Promise<NeoSession> {
    const { settings, env, model, saved, context } = made;
    const session = new NeoSession(backendId, options, settings, context);
    const approve = postureApprover(
      () => session.#posture,
      (request) => session.#clarifications.ask(request.ask, request.input, request.signal),
      {
        cwd: options.cwd,
        ...defined({ curatedMcp: options.provision?.curatedMcp }),
        report: (r) =>
          session.#emit({
            type: 'gate_decision',
            clarificationId: `gate_${r.callId}`,
            toolName: r.ask.toolName,
            ask: r.ask,
            allow: r.allow,
            reason: r.reason,
            posture: r.posture,
          }),
      },
    );
    const provider = deps.provider ?? providerFromSettings(settings, deps.retryHooks);
    session.#features = agentFeatures({
      tools: context.tools,
      root: context.root,
      settings,
      provider,
      model: () => session.#agent.model,
      system: context.system,
      approve,
      redact: session.#redact,
      price: (usage, used) => usdForUsage(options.descriptor.pricing, used ?? session.#agent.model, toUsage(usage)),
      onChecklist: (items) => session.#emit({ type: 'checklist', items }),
      keepTool: context.keepTool,
      ...defined({ checklist: saved?.checklist }),
    });
    session.#agent = createConfiguredAgent({
      settings,
      env,
      model,
      ...defined({ extraSecrets: context.mcp?.secrets }),
      ...(options.effort !== undefined
        ? { effort: options.effort }
        : saved?.effort !== undefined
          ? { effort: saved.effort }
          : {}),
      descriptor: options.descriptor,
      system: context.system,
      tools: session.#features.tools,
      ...defined({ pruner: session.#features.pruner }),
      approve,
      ...(saved !== undefined ? { messages: saved.messages, usage: saved.usage } : {}),
      onEvent: (event) => session.#onAgentEvent(event),
      // The session reports whole blocks, never deltas, so the loop need not make them.
      deltas: false,
      provider,
    });
    session.events.push({ type: 'started', externalSessionId: options.sessionId, model });
    if (options.provision !== undefined)
      session.events.push({ type: 'provision', ...provisionReport(options.provision, context) });
    for (const warning of settings.warnings)
      session.events.push({ type: 'error', code: 'AGENT_SETTINGS_IGNORED', message: warning, transient: true });
    session.#startTurn(await expandSkillMentions(options.brief, context.skills), undefined);
    return session;
  }

  get skills(): readonly Skill[] {
    return this.#context.skills;
  }

  async sendGuidance(text: string, switchTo?: { model?: string; effort?: Effort }): Promise<void> {
    this.#assertOpen('send guidance');
    if (switchTo !== undefined && (switchTo.model !== undefined || switchTo.effort !== undefined)) {
      checkEffort(this.#backendId, this.#options, switchTo.effort);
      const model =
        switchTo.model !== undefined
          ? resolveModel(switchTo.model, this.#settings, this.#options.descriptor)
          : undefined;
      this.#pendingSwitch = {
        ...this.#pendingSwitch,
        ...defined({ model, effort: switchTo.effort }),
      };
    }
    const expanded = await expandSkillMentions(text, this.#context.skills);
    if (this.#turn !== undefined) this.#agent.steer(expanded);
    else this.#startTurn(expanded, 'guidance');
  }

  async answer(clarificationId: string, decision: Decision): Promise<void> {
    this.#clarifications.answer(clarificationId, decision);
  }

  /** The checklist the model keeps with the workflow tool. */
  checklist(): ChecklistItem[] {
    return this.#features.checklist.items;
  }

  /** Reverts the last turn's file writes byte for byte (refused while a turn runs, or when a file changed since). */
  async undo(): Promise<UndoReport> {
    this.#assertIdle('undo');
    return this.#features.journal.undo();
  }

  /** Clears the conversation: the transcript, the checklist and the edit log start empty. */
  async reset(): Promise<void> {
    this.#assertIdle('reset');
    this.#agent.reset();
    this.#features.journal.clear();
    this.#features.checklist.clear();
    await this.#save();
  }

  #assertIdle(operation: string): void {
    this.#assertOpen(operation);
    if (this.#turn !== undefined)
      throw new NeoError('TRANSPORT_SESSION_BUSY', `${this.#backendId}: cannot ${operation} while a turn runs`, {
        hint: 'wait for the turn to end (neo session read) or interrupt it first',
      });
  }

  async setPosture(posture: Posture): Promise<void> {
    this.#assertOpen('change posture');
    checkPosture(this.#backendId, this.#options, posture);
    this.#posture = posture;
  }

  async interrupt(): Promise<void> {
    this.#assertOpen('interrupt');
    const turn = this.#turn;
    if (turn === undefined) return;
    // Guidance waiting for this turn goes with it.
    this.#agent.takeSteering();
    turn.controller.abort();
    await turn.done;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    const turn = this.#turn;
    turn?.controller.abort();
    await turn?.done;
    await Promise.all([this.#context.shells.killAll(), this.#context.mcp?.close()]);
    await this.#save();
    this.events.close();
  }

  #assertOpen(operation: string): void {
    if (this.#stopping !== undefined)
      throw new NeoError('TRANSPORT_SESSION_CLOSED', `${this.#backendId}: cannot ${operation}, the session has ended`);
  }

  #startTurn(text: string, pin: 'guidance' | undefined): void {
    if (this.#pendingSwitch !== undefined) {
      this.#agent.setModel(this.#pendingSwitch.model ?? this.#agent.model, this.#pendingSwitch.effort);
      this.#pendingSwitch = undefined;
    }
    const controller = new AbortController();
    this.#features.journal.beginTurn();
    this.#turnCost = 0;
    this.#turnPriced = true;
    const run = async (): Promise<void> => {
      let outcome: AgentEvent;
      try {
        outcome = this.#completed(await this.#agent.send(text, { signal: controller.signal, ...defined({ pin }) }));
      } catch (error) {
        outcome = this.#failed(error);
      }
      // Saved before the turn is reported, so whoever reads the turn can read the transcript.
      await this.#save();
      this.#turn = undefined;
      this.#emit(outcome);
      this.#next();
    };
    this.#turn = { controller, done: run() };
  }

  /** Guidance the turn ended before delivering starts the next turn. */
  #next(): void {
    if (this.#stopping !== undefined) return;
    const pending = this.#agent.takeSteering();
    if (pending.length > 0) this.#startTurn(pending.join('\n\n'), 'guidance');
  }

  #completed(result: TurnResult): AgentEvent {
    const notice = stopNotice(result);
    if (notice !== undefined) this.#emit(notice);
    return {
      type: 'turn_complete',
      numTurns: result.modelCalls,
      usage: toUsage(result.usage),
      ...this.#cost(),
      text: result.text,
    };
  }

  #failed(error: unknown): AgentEvent {
    // Asks still open belong to the turn that just ended.
    this.#clarifications.withdrawAll();
    if (error instanceof AgentError && error.code === 'AGENT_INTERRUPTED') {
      return {
        type: 'turn_complete',
        interrupted: true,
        ...this.#cost(),
        ...(error.partialText ? { text: error.partialText } : {}),
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { type: 'error', code: failureCode(error), message };
  }

  #cost(): { costUsd?: number } {
    return this.#turnPriced && this.#options.descriptor.pricing !== undefined ? { costUsd: this.#turnCost } : {};
  }

  #onAgentEvent(event: AgentLoopEvent): void {
    switch (event.type) {
      case 'text':
        return this.#emit({ type: 'text', text: event.text });
      case 'reasoning':
        return this.#emit({ type: 'reasoning', text: event.text });
      case 'tool_use':
        return this.#emit({ type: 'tool_use', id: event.id, name: event.name, input: event.input });
      case 'tool_result':
        return this.#emit({ type: 'tool_result', id: event.id, output: event.output, isError: event.isError });
      case 'usage': {
        const usage = toUsage(event.usage);
        const usd = usdForUsage(this.#options.descriptor.pricing, event.model ?? this.#agent.model, usage);
        if (usd === undefined) this.#turnPriced = false;
        else this.#turnCost += usd;
        // Each model call's spending as it happens, so a budget can stop the turn that crosses it.
        return this.#emit({ type: 'usage', usage, ...defined({ costUsd: usd }) });
      }
      case 'compacted':
        return this.#emit({
          type: 'error',
          code: 'AGENT_COMPACTED',
          transient: true,
          message: `compacted the transcript: ${event.summarizedMessages} earlier messages summarized, ${event.keptMessages} kept`,
        });
      default:
        return;
    }
  }

  /** Every string leaving the session passes the redactor: no secret reaches an event or the store. */
  #emit(event: AgentEvent): void {
    this.events.push(redactEvent(event, this.#redact));
  }

  async #save(): Promise<void> {
    const dir = this.#options.sessionDir;
    if (dir === undefined) return;
    try {
      await saveTranscript(dir, {
        provider: this.#settings.provider.name,
        model: this.#agent.model,
        ...defined({ effort: this.#agent.effort }),
        messages: this.#agent.messages,
        usage: this.#agent.usage,
        checklist: this.#features.checklist.items,
      });
    } catch (error) {
      this.#emit({
        type: 'error',
        code: 'AGENT_TRANSCRIPT_SAVE_FAILED',
        transient: true,
        message: `could not save the transcript: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
}
