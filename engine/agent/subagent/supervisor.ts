/**
 * The subagent supervisor (seed 000 internal/subagent): runs child agents under budgets — model
 * calls and wall time per child, tokens and cost for all children of one session together, depth
 * and fan-out — and turns whatever ends a child (its answer, a crossed budget, a model failure)
 * into an outcome, never a throw. A child's tokens are charged here per model call as they happen
 * (so a budget stops the child that crosses it before its next call) and handed back as one usage
 * figure the parent's loop counts once.
 */
import type { Agent } from '../loop.js';
import type { AgentLoopEvent } from '../loop-events.js';
import type { SubagentBudgets } from '../settings/agent-settings.js';
import { addUsage, emptyUsage, type AgentUsage } from '../usage.js';
import { formatMs } from '../errors.js';

/** inspect: read_file, grep and glob only; general: the parent's tools under the parent's posture. */
export type ChildKind = 'inspect' | 'general';

export interface ChildSpec {
  kind: ChildKind;
  prompt: string;
}

export interface SpawnRequest {
  kind: ChildKind;
  /** 1 for a child of the session's agent. */
  depth: number;
  maxTurns: number;
  onEvent: (event: AgentLoopEvent) => void;
}

export type ChildOutcome =
  | { ok: true; text: string; usage: AgentUsage; modelCalls: number }
  | { ok: false; reason: string; usage: AgentUsage; partialText?: string };

export interface SupervisorOptions {
  budgets: SubagentBudgets;
  /** Builds a child agent with its own empty transcript. */
  spawn: (request: SpawnRequest) => Agent;
  /** USD for one model call's usage, when the backend is priced. */
  price?: (usage: AgentUsage, model: string | undefined) => number | undefined;
}

export class Supervisor {
  readonly budgets: SubagentBudgets;
  readonly #spawn: SupervisorOptions['spawn'];
  readonly #price: SupervisorOptions['price'];
  #tokens = 0;
  #costUsd = 0;

  constructor(options: SupervisorOptions) {
    this.budgets = options.budgets;
    this.#spawn = options.spawn;
    this.#price = options.price;
  }

  /** Tokens and USD all children have used so far. */
  get spent(): { tokens: number; costUsd: number } {
    return { tokens: this.#tokens, costUsd: this.#costUsd };
  }

  /** Runs one child to its end. `depth` is the child's own (1 under the session's agent). */
  async run(spec: ChildSpec, depth: number, parentSignal: AbortSignal): Promise<ChildOutcome> {
    if (depth > this.budgets.maxDepth)
      return {
        ok: false,
        reason: `depth budget: children may nest ${this.budgets.maxDepth} deep`,
        usage: emptyUsage(),
      };
    const exhausted = this.#exhausted();
    if (exhausted !== undefined) return { ok: false, reason: exhausted, usage: emptyUsage() };
    const controller = new AbortController();
    let stopped: string | undefined;
    const stop = (reason: string): void => {
      stopped ??= reason;
      controller.abort();
    };
    const onParentAbort = (): void => stop('the parent turn was interrupted');
    if (parentSignal.aborted) onParentAbort();
    parentSignal.addEventListener('abort', onParentAbort, { once: true });
    const timer = setTimeout(
      () => stop(`wall-time budget: the child ran ${formatMs(this.budgets.maxWallMs)}`),
      this.budgets.maxWallMs,
    );
    const agent = this.#spawn({
      kind: spec.kind,
      depth,
      maxTurns: this.budgets.maxTurns,
      onEvent: (event) => {
        // Only the child's own calls are charged: a grandchild's rollup was charged as it happened.
        if (event.type !== 'usage' || event.source === 'subagent') return;
        const over = this.#charge(event.usage, event.model);
        if (over !== undefined) stop(over);
      },
    });
    try {
      const result = await agent.send(spec.prompt, { signal: controller.signal });
      if (result.stopReason === 'max_turns')
        return {
          ok: false,
          reason: `turn budget: the child made ${result.modelCalls} model calls (agent.subagents.maxTurns) without finishing`,
          usage: agent.usage,
          partialText: result.text,
        };
      return { ok: true, text: result.text, usage: agent.usage, modelCalls: result.modelCalls };
    } catch (error) {
      const partial = (error as { partialText?: string }).partialText;
      const reason = stopped ?? `the child failed: ${error instanceof Error ? error.message : String(error)}`;
      return { ok: false, reason, usage: agent.usage, ...(partial ? { partialText: partial } : {}) };
    } finally {
      clearTimeout(timer);
      parentSignal.removeEventListener('abort', onParentAbort);
    }
  }

  #charge(usage: AgentUsage, model: string | undefined): string | undefined {
    this.#tokens += usage.inputTokens + usage.cachedInputTokens + usage.outputTokens;
    const usd = this.#price?.(usage, model);
    if (usd !== undefined) this.#costUsd += usd;
    return this.#exhausted();
  }

  #exhausted(): string | undefined {
    const b = this.budgets;
    if (this.#tokens > b.maxTokens)
      return `token budget: the children used ${this.#tokens} tokens, over agent.subagents.maxTokens (${b.maxTokens})`;
    if (b.maxCostUsd !== undefined && this.#costUsd > b.maxCostUsd)
      return `cost budget: the children spent $${this.#costUsd.toFixed(4)}, over agent.subagents.maxCostUsd ($${b.maxCostUsd})`;
    return undefined;
  }
}

/** The sum of the children's usage: what the parent's loop counts, once. */
export function totalUsage(outcomes: readonly ChildOutcome[]): AgentUsage {
  return outcomes.reduce((sum, o) => addUsage(sum, o.usage), emptyUsage());
}
