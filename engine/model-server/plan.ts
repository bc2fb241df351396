import { durationMs } from '../util/duration.js';
import type { HttpError, ModelScript, Reply, Stall, Usage } from '../generated/model-script.js';
import type { RequestView } from './request-view.js';
import { sampleFromSchema } from './structured.js';
import { detectCwd, estimateTokens, fillDeep, fillTemplate } from './text.js';
import { defined } from '../util/defined.js';

/** One tool call, ready to put on the wire. */
export interface PlannedToolCall {
  /** The script's id; the wire module makes one in its API's style when absent. */
  id?: string;
  name: string;
  kind: 'function' | 'custom';
  /** The arguments JSON text (function) or the freeform input (custom). */
  input: string;
  /** The namespace the tool is called in (the Responses API's `namespace` field). */
  namespace?: string;
}

export interface PlannedUsage {
  input: number;
  output: number;
  cachedInput: number;
  reasoning: number;
}

/** When to send: a delay before the headers, a pause between events, a stall after N events. */
export interface Timing {
  delayMs: number;
  paceMs: number;
  /** Streamed events to send before going silent; `first-content` = right after the first content fragment. */
  stall?: number | 'first-content';
}

interface PlanBase {
  /** Unique per request; the wire modules build every id from it. */
  base: string;
  model: string;
  /** Unix seconds, for `created` fields. */
  created: number;
  timing: Timing;
}

/** A reply to render. */
export interface ReplyPlan extends PlanBase {
  kind: 'reply';
  reasoning?: string;
  text?: string;
  tools: PlannedToolCall[];
  stop: 'end' | 'tool_use' | 'max_tokens';
  usage: PlannedUsage;
  /** Characters per streamed fragment. */
  chunk: number;
}

/** An HTTP error to render in the API's own error shape. */
export interface ErrorPlan extends PlanBase {
  kind: 'error';
  status: number;
  message: string;
  type?: string;
  retryAfter?: number;
}

export type Plan = ReplyPlan | ErrorPlan;

/** What planning needs besides the reply. */
export interface PlanContext {
  script: ModelScript;
  view: RequestView;
  /** Variables from the caller (command line); they win over the script's `vars`. */
  vars: Readonly<Record<string, string>>;
  base: string;
  created: number;
  /** Size of the request body, for the default input-token figure. */
  requestChars: number;
}

const DEFAULT_CHUNK = 8;
const EXHAUSTED_TEXT = 'neo model server: the script has no turn left that matches this request.';

/** Turns a script reply into a concrete plan: placeholders filled, tool kinds chosen, usage set. */
export function planReply(reply: Reply | undefined, context: PlanContext): Plan {
  const { script, view } = context;
  const defaults = script.defaults ?? {};
  const timing = planTiming(reply?.delay ?? defaults.delay, reply?.pace ?? defaults.pace, reply?.stall);
  const base = { base: context.base, model: view.model, created: context.created, timing };
  if (reply?.error !== undefined) return errorPlan(reply.error, base);
  const vars = templateVars(context);
  const effective = reply ?? { text: EXHAUSTED_TEXT };
  const tools = (effective.tools ?? []).map((call): PlannedToolCall => {
    const offered = view.tools.find((t) => t.name === call.name);
    const kind = call.kind ?? offered?.kind ?? 'function';
    const args = fillDeep(call.arguments ?? {}, vars);
    return {
      ...defined({ id: call.id, namespace: call.namespace }),
      name: call.name,
      kind,
      input: typeof args === 'string' ? args : JSON.stringify(args),
    };
  });
  const text = effective.text === undefined ? undefined : fillTemplate(effective.text, vars);
  const reasoning = effective.reasoning === undefined ? undefined : fillTemplate(effective.reasoning, vars);
  const stop = tools.length > 0 ? 'tool_use' : effective.stop === 'max_tokens' ? 'max_tokens' : 'end';
  const produced = [reasoning ?? '', text ?? '', ...tools.map((t) => t.name + t.input)].join('');
  return {
    kind: 'reply',
    ...base,
    ...defined({ reasoning, text }),
    tools,
    stop,
    usage: planUsage(effective.usage ?? defaults.usage, context.requestChars, produced, reasoning),
    chunk: effective.chunk ?? defaults.chunk ?? DEFAULT_CHUNK,
  };
}

/** The reply to an auxiliary request: the aux text, or JSON built from the schema it asks for. */
export function planAux(context: PlanContext): Plan {
  const aux = context.script.aux ?? {};
  const text = aux.text ?? 'Scripted reply';
  const { view } = context;
  const body =
    view.jsonSchema !== undefined
      ? JSON.stringify(sampleFromSchema(view.jsonSchema, text))
      : view.jsonObject
        ? JSON.stringify({ text })
        : text;
  return planReply(
    { text: body, ...defined({ usage: aux.usage }) },
    { ...context, script: { ...context.script, defaults: {} } },
  );
}

function templateVars(context: PlanContext): Record<string, string> {
  const cwd = detectCwd(context.view.texts);
  return { ...defined({ cwd }), ...(context.script.vars ?? {}), ...context.vars };
}

function errorPlan(error: HttpError, base: Omit<PlanBase, never>): ErrorPlan {
  return {
    kind: 'error',
    ...base,
    status: error.status,
    message: error.message ?? `scripted error ${error.status}`,
    ...defined({ type: error.type, retryAfter: error.retryAfter }),
  };
}

function planTiming(
  delay: number | string | undefined,
  pace: number | string | undefined,
  stall: Stall | undefined,
): Timing {
  const ms = (value: number | string | undefined) => (value === undefined ? 0 : Math.max(0, durationMs(value) || 0));
  const timing: Timing = { delayMs: ms(delay), paceMs: ms(pace) };
  if (stall === true) timing.stall = 'first-content';
  else if (typeof stall === 'object') timing.stall = stall.afterEvents;
  return timing;
}

function planUsage(
  usage: Usage | undefined,
  requestChars: number,
  produced: string,
  reasoning: string | undefined,
): PlannedUsage {
  return {
    input: usage?.input ?? Math.max(1, Math.ceil(requestChars / 4)),
    output: usage?.output ?? estimateTokens(produced),
    cachedInput: usage?.cachedInput ?? 0,
    reasoning: usage?.reasoning ?? (reasoning === undefined ? 0 : estimateTokens(reasoning)),
  };
}
