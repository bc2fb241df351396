/**
 * The scripted model server: a loopback HTTP server that speaks the model APIs coding CLIs use
 * (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini) and answers turn by
 * turn from a script. It is both a product feature (`neo model serve`) and the harness the
 * real-CLI conformance suite runs against.
 */
export { startModelServer, type ModelServer, type ModelServerOptions } from './server.js';
export { loadModelScript, parseModelScript, type ScriptLoad } from './load-script.js';
export { describeRequest } from './describe.js';
export type { LoggedRequest, ReplySummary } from './request-log.js';
export type { TurnBookState } from './turn-book.js';
export type { ApiKind, RequestView } from './request-view.js';
export type { ModelScript, Turn, Reply, ToolCall, When } from '../generated/model-script.js';
