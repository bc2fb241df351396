import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspectAnthropic } from './inspect-anthropic.js';
import { inspectChat } from './inspect-chat.js';
import { inspectGemini } from './inspect-gemini.js';
import { inspectResponses } from './inspect-responses.js';
import { planAux, planReply, type Plan, type PlanContext } from './plan.js';
import { isRecord, type ApiKind, type RequestView } from './request-view.js';
import type { LoggedRequest, ReplySummary, RequestLog } from './request-log.js';
import { sendBody, sendError, sendJson, sendStream } from './respond.js';
import type { Route } from './routes.js';
import type { TurnBook } from './turn-book.js';
import { anthropicWire } from './wire-anthropic.js';
import { chatWire } from './wire-chat.js';
import { geminiWire } from './wire-gemini.js';
import { responsesWire } from './wire-responses.js';
import type { WireFormat } from './wire.js';
import { defined } from '../util/defined.js';

/** One request in flight, as the handlers see it. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The log entry, filled in by the handler and then logged. */
  entry: LoggedRequest;
  body: unknown;
  json: boolean;
  requestChars: number;
  /** Aborts when the client leaves or the server closes. */
  signal: AbortSignal;
  log: RequestLog;
}

/** Server state a model request reads and advances. */
export interface ModelContext {
  book: TurnBook;
  vars: Record<string, string>;
  clock: () => number;
  /** Unique per request: every id in the reply is built from it. */
  base: string;
}

type ModelRoute = Extract<Route, { kind: 'anthropic' | 'responses' | 'chat' | 'gemini' }>;

const WIRES: Record<ApiKind, WireFormat> = {
  anthropic: anthropicWire,
  responses: responsesWire,
  chat: chatWire,
  gemini: geminiWire,
};

/** Answers one model request: inspect it, pick a turn (or aux), plan the reply, log, send. */
export async function handleModelRequest(exchange: Exchange, target: ModelRoute, context: ModelContext): Promise<void> {
  const { entry, res, signal } = exchange;
  const api: ApiKind = target.kind;
  if (!exchange.json || !isRecord(exchange.body)) {
    entry.api = api;
    entry.reply = { kind: 'error', status: 400 };
    exchange.log.add(entry);
    sendJson(
      res,
      400,
      WIRES[api].error({
        kind: 'error',
        status: 400,
        message: 'the request body must be a JSON object',
        base: context.base,
        model: '',
        created: 0,
        timing: { delayMs: 0, paceMs: 0 },
      }),
    );
    return;
  }
  const view = inspect(target, exchange.body, exchange.url);
  const pick = context.book.pick(view);
  const planContext: PlanContext = {
    script: context.book.script,
    view,
    vars: context.vars,
    base: context.base,
    created: Math.floor(context.clock() / 1000),
    requestChars: exchange.requestChars,
  };
  const plan = pick.source === 'aux' ? planAux(planContext) : planReply(pick.reply, planContext);
  Object.assign(entry, {
    role: pick.source === 'aux' ? 'aux' : 'main',
    api,
    model: view.model,
    stream: view.stream,
    toolsOffered: view.tools.map((t) => t.name),
    ...(pick.source === 'turn' ? { turn: pick.index } : {}),
    ...(pick.source === 'fallback' ? { fallback: true } : {}),
    reply: summarize(plan),
    warnings: warnings(plan, view),
  });
  exchange.log.add(entry);
  const wire = WIRES[api];
  if (plan.kind === 'error') {
    await sendError(res, plan, wire.error(plan), signal);
  } else if (view.stream) {
    const framing = api === 'gemini' && exchange.url.searchParams.get('alt') !== 'sse' ? 'json-array' : 'sse';
    await sendStream(res, plan, wire.stream(plan, view), framing, signal);
  } else {
    await sendBody(res, plan, wire.json(plan, view), signal);
  }
}

function inspect(target: ModelRoute, body: Record<string, unknown>, url: URL): RequestView {
  switch (target.kind) {
    case 'anthropic':
      return inspectAnthropic(body);
    case 'responses':
      return inspectResponses(body);
    case 'chat':
      return inspectChat(body);
    case 'gemini':
      return inspectGemini(
        body,
        target.model,
        target.action === 'streamGenerateContent' || url.searchParams.get('alt') === 'sse',
      );
  }
}

function summarize(plan: Plan): ReplySummary {
  if (plan.kind === 'error') return { kind: 'error', status: plan.status };
  return {
    kind: 'reply',
    status: 200,
    ...defined({ text: plan.text }),
    ...(plan.tools.length === 0 ? {} : { tools: plan.tools.map((t) => t.name) }),
    ...(plan.timing.stall === undefined ? {} : { stall: true }),
  };
}

/** A tool call the request did not offer "passes" on the wire but fails in the CLI: say so. */
function warnings(plan: Plan, view: RequestView): string[] {
  if (plan.kind === 'error') return [];
  const offered = view.tools.map((t) => t.name);
  return plan.tools
    .filter((call) => !offered.includes(call.name))
    .map(
      (call) =>
        `tool ${JSON.stringify(call.name)} is not offered by this request (offered: ${offered.length === 0 ? 'none' : offered.join(', ')})`,
    );
}
