import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { kinds, lastOf } from '../../contract/event-reader.js';
import { replay } from './replay.js';

/**
 * The real CLIs' answers to a failing model provider, replayed from captures
 * (tests/fixtures/cli-captures, recorded by tests/clis/provider-errors.cli-test.ts with
 * NEO_CAPTURE=1): a rejected key, a port nothing listens on and a 500, each read by the adapter
 * into a typed failure that names the provider — never agent text, never a normal turn end.
 */
interface Case {
  cli: string;
  fault: string;
  /** Event kinds up to the failure (notices as error:TRANSPORT_MODEL_RETRY). */
  kinds: string[];
  /** The failure's message. */
  message?: RegExp;
  /** Replays the captured timing (scaled) where neo's own give-up depends on it. */
  paced?: boolean;
}

const retries = (n: number) => Array<string>(n).fill('error:TRANSPORT_MODEL_RETRY');

const CASES: Case[] = [
  {
    cli: 'claude',
    fault: 'unauthorized',
    // Claude would retry the 401 ten times over three minutes; neo fails the turn at the first.
    kinds: ['started', 'error:TRANSPORT_UNAUTHENTICATED'],
    message:
      /^claude-code: it is not authenticated with its model provider \(HTTP 401\): claude got HTTP 401 \(authentication_failed\) \(attempt 1\/10\) — check the API key/,
  },
  {
    cli: 'claude',
    fault: 'unreachable',
    paced: true,
    kinds: ['started', ...retries(3), 'error:TRANSPORT_PROVIDER_UNREACHABLE'],
    message: /^claude-code: it could not reach its model provider: claude got no answer/,
  },
  { cli: 'claude', fault: 'server-error', kinds: ['started', 'error:TRANSPORT_MODEL_RETRY'] },
  {
    cli: 'codex',
    fault: 'unauthorized',
    kinds: ['started', 'error:TRANSPORT_UNAUTHENTICATED'],
    message:
      /^codex: it is not authenticated with its model provider \(HTTP 401\): unexpected status 401 Unauthorized: Incorrect API key/,
  },
  {
    cli: 'codex',
    fault: 'unreachable',
    paced: true,
    kinds: ['started', ...retries(1), 'error:TRANSPORT_PROVIDER_UNREACHABLE'],
    message:
      /^codex: it could not reach its model provider: Reconnecting\.\.\. waiting for network \(Connection failed/,
  },
  {
    cli: 'codex',
    fault: 'server-error',
    kinds: ['started', 'error:TRANSPORT_PROVIDER_ERROR'],
    message: /^codex: its model provider failed: /,
  },
  {
    cli: 'copilot',
    fault: 'unauthorized',
    // Copilot says it retries, then says the key was rejected — as agent text, ending its turn normally.
    kinds: ['started', ...retries(2), 'error:TRANSPORT_UNAUTHENTICATED'],
    message:
      /^copilot: it is not authenticated with its model provider: Authentication failed with provider at \S+ \(HTTP 401\)\. Check your COPILOT_PROVIDER_API_KEY/,
  },
  {
    cli: 'copilot',
    fault: 'unreachable',
    kinds: ['started', ...retries(5), 'error:TRANSPORT_PROVIDER_UNREACHABLE'],
    message: /^copilot: it could not reach its model provider: Could not connect to local model provider at /,
  },
  {
    cli: 'copilot',
    fault: 'server-error',
    kinds: ['started', ...retries(5), 'error:TRANSPORT_PROVIDER_ERROR'],
    message:
      /^copilot: its model provider failed: Failed to get response from the AI model; retried 5 times .*Last error: 500 Scripted outage/,
  },
  {
    cli: 'droid',
    fault: 'unauthorized',
    // Droid's JSON-RPC error says only "Internal error: Agent error"; its cause is in `data`.
    kinds: ['started', 'error:TRANSPORT_UNAUTHENTICATED'],
    message:
      /^droid: it is not authenticated with its model provider: Internal error: Agent error: 401 Incorrect API key provided/,
  },
  {
    cli: 'droid',
    fault: 'unreachable',
    kinds: ['started', 'error:TRANSPORT_PROVIDER_UNREACHABLE'],
    message: /^droid: it could not reach its model provider: Internal error: Agent error: Connection error\./,
  },
  {
    cli: 'gemini',
    fault: 'unauthorized',
    kinds: ['started', 'error:TRANSPORT_UNAUTHENTICATED'],
    message: /^gemini: it is not authenticated with its model provider: .*Incorrect API key provided/,
  },
  {
    cli: 'opencode',
    fault: 'unauthorized',
    kinds: ['started', 'error:TRANSPORT_UNAUTHENTICATED'],
    message: /^opencode: it is not authenticated with its model provider: AI_APICallError: Incorrect API key provided/,
  },
  {
    cli: 'opencode',
    fault: 'unreachable',
    paced: true,
    kinds: ['started', ...retries(2), 'error:TRANSPORT_PROVIDER_UNREACHABLE'],
    message: /^opencode: it could not reach its model provider: AI_APICallError: Cannot connect to API/,
  },
  {
    cli: 'opencode',
    fault: 'server-error',
    // OpenCode's ACP stream is silent while it retries; its log line on stderr is the notice.
    kinds: ['started', 'error:TRANSPORT_MODEL_RETRY'],
  },
];

const ends = (e: AgentEvent) =>
  e.type === 'turn_complete' || (e.type === 'error' && (e.transient !== true || e.code === undefined));

describe('provider errors, replayed from the real CLIs', () => {
  for (const c of CASES) {
    it(`${c.cli} × ${c.fault}: ${c.kinds.at(-1)}`, async () => {
      const { session, reader } = await replay(c.cli, c.fault, {
        ...(c.paced ? { pace: 0.1, tuning: { unreachableGiveUpMs: 300 } } : {}),
      });
      try {
        const last = c.kinds.at(-1)!;
        const events = await reader.until((e) => ends(e) || (e.type === 'error' && `error:${e.code}` === last), last);
        expect(kinds(events)).toEqual(c.kinds);
        expect(events.filter((e) => e.type === 'text')).toEqual([]);
        if (c.message !== undefined) {
          const failure = lastOf(events, 'error');
          expect(failure.message).toMatch(c.message);
          expect(failure.transient).toBeUndefined();
          expect(failure.fatal).toBeUndefined();
        }
      } finally {
        await session.stop();
      }
    });
  }
});
