import { JsonRpcError } from '../shared/json-rpc.js';
import { PROVIDER_CODES, providerCode, type ProviderCode } from '../shared/provider-failure.js';
import { errorMessage } from '../../util/errors.js';

/** A message an ACP agent sends as agent text that is really about its model provider. */
export type AgentNotice = { kind: 'retry'; message: string } | { kind: 'failure'; code: ProviderCode; detail: string };

/**
 * The shapes the real agents use, each a whole message chunk (captured from the CLIs against a
 * scripted server answering 401, 500, or nothing):
 * - Copilot: `Info: Request failed due to a transient API error. Retrying...` while it retries,
 *   then `Error: Authentication failed with provider at <url> (HTTP 401).…`, `Error: Could not
 *   connect to local model provider at <url>.…` or `Error: Failed to get response from the AI
 *   model; retried 5 times (…) Last error: 500 …`, and it ends the turn normally.
 * Droid says `Error: 401 Incorrect API key provided: …` or `Error: Connection error.` and then
 * fails the prompt with the same words in the JSON-RPC error's `data` (see promptErrorDetail).
 */
const NOTICES: Array<{ pattern: RegExp; read: (said: string) => AgentNotice }> = [
  { pattern: /^Info: (.*Retrying\.\.\.)\s*$/s, read: (said) => ({ kind: 'retry', message: said }) },
  {
    pattern:
      /^Error: ((?:Authentication failed with provider|Could not connect to (?:local )?model provider|Failed to get response from the AI model|Rate limit)[\s\S]*)$/,
    read: (said) => ({ kind: 'failure', code: providerCode(undefined, said) ?? PROVIDER_CODES.failed, detail: said }),
  },
];

/** The notice a whole agent message chunk is, or undefined when it is the agent speaking. */
export function agentNotice(text: string): AgentNotice | undefined {
  for (const { pattern, read } of NOTICES) {
    const match = pattern.exec(text);
    if (match !== null) return read(match[1]!.trim());
  }
  return undefined;
}

/**
 * What a failed session/prompt says, with the agent's own cause: droid answers `Internal error:
 * Agent error` and puts the cause in the JSON-RPC `data`; opencode puts an `errorName` there.
 */
export function promptErrorDetail(error: unknown, errorLine?: string): string {
  const message = errorMessage(error);
  const data = error instanceof JsonRpcError ? error.data : undefined;
  const said =
    typeof data === 'string'
      ? data
      : data === undefined || data === null
        ? (errorLine ?? '')
        : JSON.stringify(data).slice(0, 400);
  return said === '' || message.includes(said) ? message : `${message}: ${said}`;
}

/**
 * OpenCode logs each failed model request on stderr when run with `--print-logs --log-level
 * ERROR` (its ACP stream says nothing while it retries): `level=ERROR … message="stream error"
 * … small=false … error.error="AI_APICallError: Cannot connect to API: …"`. The title
 * generator's requests (`small=true`) are not the turn's.
 */
export function stderrModelFailure(line: string): string | undefined {
  if (!line.includes('message="stream error"') || /\bsmall=true\b/.test(line)) return undefined;
  const said = /\berror\.error="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
  return said === undefined ? 'stream error' : said.replace(/\\(.)/g, '$1');
}
