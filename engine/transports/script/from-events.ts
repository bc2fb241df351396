import type { Action, Cost, Script } from '../../generated/script.js';
import { toolActions } from './tool-actions.js';
import { defined } from '../../util/defined.js';
import { isRecord } from '../../util/json-shape.js';

/** A recorded session turned into a script, with what could not be carried over. */
export interface FromEventsResult {
  script: Script;
  /** Per turn: the prompt that started it (the guidance recorded before it), for a comment. */
  prompts: Array<string | undefined>;
  /** One line per recorded thing the script leaves out (unknown tool shapes, paths outside the tree…). */
  notes: string[];
}

export interface FromEventsOptions {
  /** The recorded session's working tree: absolute paths under it become relative. */
  cwd?: string;
  description?: string;
}

interface AskBuild {
  toolName: string;
  input: Record<string, unknown>;
  onAllow: Action[];
  onDeny: Action[];
}

interface TurnBuild {
  actions: Action[];
  /** Where the next action goes: the turn itself, or an ask's recorded branch. */
  target: Action[];
  cost?: Cost;
  prompt?: string;
  lastTool?: { name: string; input: unknown; modeled: boolean; ask?: AskBuild };
}

/**
 * Turns the events of a recorded session (normalized agent events plus the registry's
 * annotations, in order) into a script: text → say, reasoning → think, file edits → write /
 * edit / delete / rename, commands → run, turn_complete / error / ended → turn boundaries with
 * their cost figures. A permission question about a file edit or command is not written out:
 * replayed under the same posture, the action raises it again. A call to any other tool that is
 * not read-only becomes an `ask` whose recorded branch holds the rest of the turn.
 */
export function scriptFromEvents(events: readonly unknown[], options: FromEventsOptions = {}): FromEventsResult {
  const answers = recordedAnswers(events);
  const results = recordedResults(events);
  const turns: TurnBuild[] = [];
  const notes: string[] = [];
  let model: string | undefined;
  let pendingPrompt: string[] = [];
  const fresh = (): TurnBuild => {
    const actions: Action[] = [];
    return { actions, target: actions };
  };
  let turn = fresh();
  let open = false;
  // Guidance recorded before a turn's first event is the prompt that started it; guidance that
  // arrives mid-turn waits for the next one, as it did live.
  const begin = () => {
    if (open) return;
    open = true;
    if (pendingPrompt.length > 0) turn.prompt = pendingPrompt.join('\n\n');
    pendingPrompt = [];
  };
  const close = () => {
    begin();
    turns.push(turn);
    turn = fresh();
    open = false;
  };
  for (const [index, raw] of events.entries()) {
    if (!isRecord(raw) || typeof raw.type !== 'string') continue;
    const event = raw;
    switch (event.type) {
      case 'started':
      case 'created':
        if (typeof event.model === 'string' && event.model !== '') model ??= event.model;
        break;
      case 'text':
        if (typeof event.text === 'string' && event.text !== '') push({ say: event.text });
        break;
      case 'reasoning':
        if (typeof event.text === 'string' && event.text !== '') push({ think: event.text });
        break;
      case 'tool_use': {
        const name = String(event.name);
        const result = typeof event.id === 'string' ? results.get(event.id) : undefined;
        const converted = toolActions(name, event.input, result, options.cwd);
        if (converted.note !== undefined) notes.push(`event ${index + 1}: ${converted.note}`);
        begin();
        for (const action of converted.actions) push(action);
        turn.lastTool = { name, input: event.input, modeled: converted.actions.length > 0 };
        if (converted.foreign) {
          // A tool the script cannot perform: an ask, whose branch is the recorded outcome (a
          // clarification's answer when one follows; else allowed unless a posture refused it).
          const refused = result?.isError === true && result.output.startsWith('denied');
          turn.lastTool.ask = openAsk(name, event.input, !refused);
        }
        break;
      }
      case 'clarify': {
        const last = turn.lastTool;
        const same = last !== undefined && last.name === event.toolName && sameJson(last.input, event.input);
        // Replayed under the same posture, a file edit or command raises this question again.
        if (same && last.modeled) break;
        const id = String(event.clarificationId);
        const allow = answers.get(id) ?? true;
        if (!answers.has(id))
          notes.push(`event ${index + 1}: no recorded answer for clarification ${id}; assumed allowed`);
        if (same && last.ask !== undefined && last.ask.onAllow.length === 0 && last.ask.onDeny.length === 0)
          turn.target = allow ? last.ask.onAllow : last.ask.onDeny;
        else openAsk(String(event.toolName), event.input, allow);
        break;
      }
      case 'turn_complete':
        setCost(turn, event);
        // The recorded turn ran until it was interrupted: the replay waits for an interrupt too.
        if (event.interrupted === true) push({ hang: { note: 'interrupted in the recording' } });
        close();
        break;
      case 'error':
        push({
          fail: {
            message: String(event.message ?? 'error'),
            ...(event.transient === true ? { transient: true } : {}),
            ...(event.fatal === true ? { fatal: true } : {}),
          },
        });
        close();
        break;
      case 'ended':
        setCost(turn, event);
        push({
          end: {
            ok: event.ok !== false,
            ...(typeof event.text === 'string' && event.text !== '' ? { text: event.text } : {}),
          },
        });
        close();
        break;
      case 'guidance':
        if (typeof event.text === 'string') pendingPrompt.push(event.text);
        break;
      default:
        // tool_result, provision and the registry's other annotations carry nothing to replay.
        break;
    }
  }
  if (open) {
    notes.push('the recording stops mid-turn; its last turn is kept as far as it got');
    turns.push(turn);
  }
  if (turns.length === 0) turns.push(fresh());

  function openAsk(toolName: string, input: unknown, allow: boolean): AskBuild {
    const ask: AskBuild = {
      toolName,
      input: isRecord(input) ? input : { value: input ?? null },
      onAllow: [],
      onDeny: [],
    };
    push({ ask });
    turn.target = allow ? ask.onAllow : ask.onDeny;
    return ask;
  }

  function push(action: Action): void {
    begin();
    turn.target.push(action);
  }

  const script: Script = { turns: turns.map(toTurn) as Script['turns'] };
  if (options.description !== undefined) script.description = options.description;
  if (model !== undefined) script.model = model;
  return { script: orderKeys(script), prompts: turns.map((t) => t.prompt), notes };
}

function toTurn(turn: TurnBuild): Script['turns'][number] {
  return turn.cost === undefined ? { actions: turn.actions } : { actions: turn.actions, cost: turn.cost };
}

function setCost(turn: TurnBuild, event: Record<string, unknown>): void {
  const cost: Cost = {};
  if (typeof event.costUsd === 'number') cost.usd = event.costUsd;
  const usage = isRecord(event.usage) ? event.usage : {};
  for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'reasoningTokens'] as const) {
    const value = usage[key];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) cost[key] = value;
  }
  if (Object.keys(cost).length > 0) turn.cost = cost;
}

/** clarificationId → allowed, from the registry's `clarification` annotations. */
function recordedAnswers(events: readonly unknown[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const event of events) {
    if (!isRecord(event) || event.type === 'clarify' || typeof event.clarificationId !== 'string') continue;
    const decision = isRecord(event.decision) ? event.decision : event;
    if (typeof decision.allow === 'boolean') out.set(event.clarificationId, decision.allow);
  }
  return out;
}

function recordedResults(events: readonly unknown[]): Map<string, { output: string; isError: boolean }> {
  const out = new Map<string, { output: string; isError: boolean }>();
  for (const event of events) {
    if (isRecord(event) && event.type === 'tool_result' && typeof event.id === 'string') {
      out.set(event.id, {
        output: typeof event.output === 'string' ? event.output : '',
        isError: event.isError === true,
      });
    }
  }
  return out;
}

function orderKeys(script: Script): Script {
  const { description, model, externalSessionId, turns } = script;
  return {
    ...defined({ description, model, externalSessionId }),
    turns,
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
