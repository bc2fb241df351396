/**
 * The scripted model server: a loopback HTTP server that speaks the model APIs coding CLIs use
 * (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini) and answers turn by
 * turn from a script. It is both a product feature (`neo model serve`) and the harness the
 * real-CLI conformance suite runs against.
 */
export { startModelServer } from './server.js';
export { loadModelScript, parseModelScript } from './load-script.js';
export { describeRequest } from './describe.js';
