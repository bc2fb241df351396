/**
 * The agent loop. Policy-free: it owns the transcript, calls the provider, emits events and runs
 * the tools it was given, continuing until the assistant ends the turn or maxTurns provider calls
 * were made. Approval, posture, persistence and presentation are injected or layered around it.
 *
 * Stop reasons: `tool_use` runs the tools and continues; `pause_turn` replays the assistant
 * response and continues; `refusal` ends the turn with the refusal text unless steering is queued,
 * which then continues the turn; `max_tokens` and `context_window_exceeded` end it with a typed
 * error that keeps the partial text; anything unknown fails the turn rather than calling again.
 */
import type { Effort } from '../definitions/index.js';
import type { Compactor } from './compaction/compactor.js';
import type { ContextPruner } from './context/pruner.js';
import { estimateTokens } from './compaction/estimate.js';
import { AgentError, cancelledError } from './errors.js';
import type { AgentLoopEvent, TurnResult } from './loop-events.js';
import {
  textOf,
  toolUsesOf,
  type ContentBlock,
  type Message,
  type ModelResponse,
  type PinKind,
  type ToolResultBlock,
  type ToolSpec,
  type ToolUseBlock,
} from './messages.js';
import { capText } from './output-cap.js';
import type { Provider } from './providers/provider.js';
import type { AgentTool, ToolApprover } from './tool.js';
import { closeDanglingToolUses, runToolCall, toolContext, unabortable } from './tool-call.js';
import { addUsage, emptyUsage, type AgentUsage } from './usage.js';
import { memoByIdentity } from '../util/memo-by-identity.js';
import { defined } from '../util/defined.js';

export const DEFAULT_MAX_TURNS = 50;
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
export const DEFAULT_TOOL_OUTPUT_MAX_BYTES = 32 * 1024;

const NO_TOOLS: readonly AgentTool[] = [];

/** The tools by name (the last of a name wins), worked out once per tool list. */
const toolsByName = memoByIdentity((tools: readonly AgentTool[]) => new Map(tools.map((t) => [t.spec.name, t])));
/** Their specs: one array per tool list, on which providers memoize the wire form. */
const toolSpecs = memoByIdentity((tools: readonly AgentTool[]) => [...toolsByName(tools).values()].map((t) => t.spec));

export interface AgentOptions {
  provider: Provider;
  model: string;
  effort?: Effort;
  system: string;
  tools?: readonly AgentTool[];
  /** Asked before every tool call; absent means every call runs. */
  approve?: ToolApprover;
  maxTurns?: number;
  maxOutputTokens?: number;
  toolOutputMaxBytes?: number;
  compactor?: Compactor;
  /** Parks stale tool results in what each model call is sent (the transcript keeps them). */
  pruner?: ContextPruner;
  /** A restored transcript and its usage so far (resume). */
  messages?: readonly Message[];
  usage?: AgentUsage;
  onEvent?: (event: AgentLoopEvent) => void;
  /** Emit text_delta / reasoning_delta events as a response streams (default true). */
  deltas?: boolean;
  /** Scrubs secrets from tool output before it enters the transcript. */
  redact?: (text: string) => string;
}

export interface SendOptions {
  signal?: AbortSignal;
  /** Pins this message through compaction (guidance). */
  pin?: PinKind;
}

export class Agent {
  readonly #provider: Provider;
  readonly #system: string;
  readonly #tools: ReadonlyMap<string, AgentTool>;
  /** One array for every call of every agent given this tool list (see toolSpecs). */
  readonly #toolSpecs: readonly ToolSpec[];
  readonly #approve: ToolApprover | undefined;
  readonly #maxTurns: number;
  readonly #maxOutputTokens: number;
  readonly #toolOutputMaxBytes: number;
  readonly #compactor: Compactor | undefined;
  readonly #pruner: ContextPruner | undefined;
  readonly #onEvent: (event: AgentLoopEvent) => void;
  readonly #redact: (text: string) => string;
  readonly #deltas: boolean;
  #model: string;
  #effort: Effort | undefined;
  #messages: Message[];
  #usage: AgentUsage;
  #steering: string[] = [];
  #running = false;
  /** Tokens the last response reported, and how many messages it covered. */
  #lastContext: { tokens: number; messages: number } | undefined;

  constructor(options: AgentOptions) {
    this.#provider = options.provider;
    this.#model = options.model;
    this.#effort = options.effort;
    this.#system = options.system;
    this.#tools = toolsByName(options.tools ?? NO_TOOLS);
    this.#toolSpecs = toolSpecs(options.tools ?? NO_TOOLS);
    this.#approve = options.approve;
    this.#maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
    this.#maxOutputTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    this.#toolOutputMaxBytes = options.toolOutputMaxBytes ?? DEFAULT_TOOL_OUTPUT_MAX_BYTES;
    this.#compactor = options.compactor;
    this.#pruner = options.pruner;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#redact = options.redact ?? ((text) => text);
    this.#deltas = options.deltas ?? true;
    this.#messages = [...(options.messages ?? [])];
    this.#usage = options.usage ? { ...options.usage } : emptyUsage();
  }

  /** A copy of the transcript. */
  get messages(): Message[] {
    return this.#messages.map((m) => ({ ...m, content: [...m.content] }));
  }

  /** Total usage of this agent, compaction included. */
  get usage(): AgentUsage {
    return { ...this.#usage };
  }

  get model(): string {
    return this.#model;
  }

  get effort(): Effort | undefined {
    return this.#effort;
  }

  get running(): boolean {
    return this.#running;
  }

  get system(): string {
    return this.#system;
  }

  /** The model and effort for the next provider call. */
  setModel(model: string, effort?: Effort): void {
    this.#model = model;
    if (effort !== undefined) this.#effort = effort;
  }

  /** Clears the conversation (usage so far stays: it was spent). Refused while a turn runs. */
  reset(): void {
    if (this.#running) throw new AgentError('AGENT_BUSY', 'a turn is running; interrupt it before a reset');
    this.#messages = [];
    this.#steering = [];
    this.#lastContext = undefined;
  }

  /** Queues guidance for the running turn; it joins the transcript at the next tool boundary. */
  steer(text: string): void {
    this.#steering.push(text);
  }

  /** Steering that the last turn ended before delivering. */
  takeSteering(): string[] {
    const pending = this.#steering;
    this.#steering = [];
    return pending;
  }

  /**
   * Appends one user message and runs the turn. Resolves with how it ended; rejects with the same
   * error it emitted as an `error` event (a model failure, an interruption, a truncated turn).
   */
  async send(text: string, options: SendOptions = {}): Promise<TurnResult> {
    if (this.#running) throw new AgentError('AGENT_BUSY', 'a turn is already running');
    this.#running = true;
    // No signal is made up when the caller gave none: an AbortSignal costs microseconds to make,
    // and nothing could abort it anyway. Tools and the compactor get one of their own.
    const signal = options.signal;
    this.#messages.push({
      role: 'user',
      content: [{ type: 'text', text: this.#redact(text) }],
      ...(options.pin ? { pin: options.pin } : {}),
    });
    const turn = { usage: emptyUsage(), modelCalls: 0, partial: '' };
    try {
      const result = await this.#run(signal, turn);
      this.#onEvent({ type: 'turn_end', result });
      return result;
    } catch (error) {
      // An interrupted turn keeps whatever text had streamed so far.
      const failure = signal?.aborted
        ? new AgentError('AGENT_INTERRUPTED', 'interrupted', turn.partial !== '' ? { partialText: turn.partial } : {})
        : error;
      closeDanglingToolUses(this.#messages);
      const reported = failure instanceof Error ? failure : new Error(String(failure));
      this.#onEvent({ type: 'error', error: reported });
      throw reported;
    } finally {
      this.#running = false;
    }
  }

  async #run(
    signal: AbortSignal | undefined,
    turn: { usage: AgentUsage; modelCalls: number; partial: string },
  ): Promise<TurnResult> {
    const finish = (response: ModelResponse | undefined, stopReason: TurnResult['stopReason']): TurnResult => ({
      text: response ? textOf(response.content) : '',
      stopReason,
      modelCalls: turn.modelCalls,
      usage: turn.usage,
    });
    let last: ModelResponse | undefined;
    for (;;) {
      if (turn.modelCalls >= this.#maxTurns) return finish(last, 'max_turns');
      if (this.#compactor !== undefined) await this.#maybeCompact(this.#compactor, signal, turn);
      turn.partial = '';
      const response = await this.#provider.complete(
        {
          model: this.#model,
          system: this.#system,
          messages: this.#pruner !== undefined ? this.#pruner.view(this.#messages) : this.#messages,
          tools: this.#toolSpecs,
          maxOutputTokens: this.#maxOutputTokens,
          ...(this.#effort ? { effort: this.#effort } : {}),
        },
        {
          signal,
          sink: this.#deltas
            ? {
                text: (delta) => {
                  turn.partial += delta;
                  this.#onEvent({ type: 'text_delta', text: delta });
                },
                reasoning: (delta) => this.#onEvent({ type: 'reasoning_delta', text: delta }),
              }
            : {
                text: (delta) => {
                  turn.partial += delta;
                },
              },
        },
      );
      last = response;
      turn.modelCalls++;
      this.#count(turn, response.usage, 'model', response.model);
      this.#messages.push({ role: 'assistant', content: response.content.map((b) => this.#redactBlock(b)) });
      this.#lastContext = {
        tokens: response.usage.inputTokens + response.usage.outputTokens,
        messages: this.#messages.length,
      };
      this.#emitBlocks(response.content);
      const calls = toolUsesOf(response.content);
      const stop = response.stopReason;
      if (stop === 'tool_use' || (stop === 'end_turn' && calls.length > 0)) {
        await this.#runTools(calls, signal, turn);
        this.#deliverSteering();
        continue;
      }
      if (stop === 'end_turn') return finish(response, 'end_turn');
      if (stop === 'pause_turn') continue;
      if (stop === 'refusal') {
        if (this.#steering.length === 0) return finish(response, 'refusal');
        this.#deliverSteering();
        continue;
      }
      const partialText = textOf(response.content);
      if (stop === 'max_tokens')
        throw new AgentError(
          'AGENT_OUTPUT_TRUNCATED',
          `the response hit the output limit (${this.#maxOutputTokens} tokens) and was cut off`,
          { partialText },
        );
      if (stop === 'context_window_exceeded')
        throw new AgentError(
          'AGENT_CONTEXT_WINDOW_EXCEEDED',
          "the conversation exceeds the model's context window; the response was truncated",
          { partialText, hint: 'lower agent.compactAtTokens in neo.yaml' },
        );
      throw new AgentError(
        'AGENT_UNKNOWN_STOP_REASON',
        `${this.#provider.name}: unknown stop reason "${response.rawStopReason}"`,
        { partialText },
      );
    }
  }

  #count(
    turn: { usage: AgentUsage },
    usage: AgentUsage,
    source: 'model' | 'compaction' | 'subagent',
    model?: string,
  ): void {
    turn.usage = addUsage(turn.usage, usage);
    this.#usage = addUsage(this.#usage, usage);
    this.#onEvent({ type: 'usage', usage, source, ...defined({ model }) });
  }

  async #maybeCompact(
    compactor: Compactor,
    signal: AbortSignal | undefined,
    turn: { usage: AgentUsage },
  ): Promise<void> {
    const last = this.#lastContext;
    const contextTokens =
      last !== undefined && last.messages <= this.#messages.length
        ? last.tokens + estimateTokens(this.#messages.slice(last.messages))
        : estimateTokens(this.#messages, this.#system);
    const result = await compactor.compact({
      messages: this.#messages,
      system: this.#system,
      contextTokens,
      model: this.#model,
      ...(this.#effort ? { effort: this.#effort } : {}),
      signal: signal ?? unabortable(),
    });
    if (result === undefined) return;
    this.#count(turn, result.usage, 'compaction');
    this.#messages = result.messages;
    this.#lastContext = undefined;
    this.#onEvent({
      type: 'compacted',
      summarizedMessages: result.summarizedMessages,
      keptMessages: result.messages.length,
    });
  }

  #emitBlocks(content: readonly ContentBlock[]): void {
    for (const block of content) {
      if (block.type === 'reasoning' && block.text !== '') this.#onEvent({ type: 'reasoning', text: block.text });
      else if (block.type === 'text' && block.text !== '') this.#onEvent({ type: 'text', text: block.text });
      else if (block.type === 'tool_use')
        this.#onEvent({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    }
  }

  async #runTools(
    calls: readonly ToolUseBlock[],
    turnSignal: AbortSignal | undefined,
    turn: { usage: AgentUsage },
  ): Promise<void> {
    const context = toolContext(turnSignal);
    const results: ToolResultBlock[] = [];
    try {
      for (const call of calls) {
        if (turnSignal?.aborted) throw cancelledError();
        const result = await runToolCall(this.#tools, this.#approve, call, context);
        // A child agent's tokens join this agent's once, here (its own events never reach ours).
        if (result.usage !== undefined) this.#count(turn, result.usage, 'subagent');
        const content = capText(this.#redact(result.output), this.#toolOutputMaxBytes);
        results.push({
          type: 'tool_result',
          toolUseId: call.id,
          name: call.name,
          content,
          isError: result.isError,
          ...(result.pinned !== undefined ? { pinned: this.#redact(result.pinned) } : {}),
        });
        this.#onEvent({ type: 'tool_result', id: call.id, name: call.name, output: content, isError: result.isError });
      }
    } finally {
      if (results.length > 0) this.#messages.push({ role: 'user', content: results });
    }
  }

  /** Queued steering joins the transcript as pinned guidance. */
  #deliverSteering(): void {
    for (const text of this.takeSteering())
      this.#messages.push({ role: 'user', content: [{ type: 'text', text: this.#redact(text) }], pin: 'guidance' });
  }

  /**
   * Secrets never enter the transcript, whoever wrote them: a model that repeats a key it read
   * somewhere has it scrubbed like any tool output.
   */
  #redactBlock(block: ContentBlock): ContentBlock {
    if (block.type === 'text' || block.type === 'reasoning') {
      const text = this.#redact(block.text);
      return text === block.text ? block : { ...block, text };
    }
    if (block.type === 'tool_use') {
      const json = JSON.stringify(block.input ?? null);
      const clean = this.#redact(json);
      return clean === json ? block : { ...block, input: JSON.parse(clean) as unknown };
    }
    return block;
  }
}
