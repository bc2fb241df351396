import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../engine/transports/index.js';
import { lastOf } from '../contract/event-reader.js';
import { keepCapture, tapped, unreachableUrl } from './harness/capture.js';
import { cliSetup, type CliId } from './harness/cli-setups.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';
import { defined } from '../../engine/util/defined.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'provider-faults.yaml');

type Fault = 'unauthorized' | 'unreachable' | 'server-error';

/**
 * What each real CLI does when its model provider fails, read through neo's adapter: the code
 * the turn ends with (or the retry notice that shows first, for CLIs that retry a 500 for
 * minutes), and how long it may take. A rejected key is never waited out; a provider the CLI
 * cannot reach is given up after `unreachableGiveUpMs` (3 s here) of retrying.
 */
const EXPECTED: Record<CliId, Partial<Record<Fault, { first: string; withinMs: number }>>> = {
  claude: {
    unauthorized: { first: 'error:TRANSPORT_UNAUTHENTICATED', withinMs: 30_000 },
    unreachable: { first: 'error:TRANSPORT_PROVIDER_UNREACHABLE', withinMs: 60_000 },
    'server-error': { first: 'notice:TRANSPORT_MODEL_RETRY', withinMs: 30_000 },
  },
  codex: {
    unauthorized: { first: 'error:TRANSPORT_UNAUTHENTICATED', withinMs: 30_000 },
    unreachable: { first: 'error:TRANSPORT_PROVIDER_UNREACHABLE', withinMs: 60_000 },
    'server-error': { first: 'error:TRANSPORT_PROVIDER_ERROR', withinMs: 30_000 },
  },
  opencode: {
    unauthorized: { first: 'error:TRANSPORT_UNAUTHENTICATED', withinMs: 90_000 },
    unreachable: { first: 'error:TRANSPORT_PROVIDER_UNREACHABLE', withinMs: 90_000 },
    'server-error': { first: 'notice:TRANSPORT_MODEL_RETRY', withinMs: 90_000 },
  },
  copilot: {
    unauthorized: { first: 'error:TRANSPORT_UNAUTHENTICATED', withinMs: 60_000 },
    unreachable: { first: 'error:TRANSPORT_PROVIDER_UNREACHABLE', withinMs: 90_000 },
    'server-error': { first: 'error:TRANSPORT_PROVIDER_ERROR', withinMs: 90_000 },
  },
  // Gemini CLI 0.61 retries a 500 or a closed port for minutes without a word on its ACP stream;
  // its stderr says "Attempt N failed … Retrying with backoff" but reaches the pipe only at exit.
  gemini: {
    unauthorized: { first: 'error:TRANSPORT_UNAUTHENTICATED', withinMs: 90_000 },
  },
  // Droid retries a 500 without a word on its ACP stream or stderr: nothing to show until the idle timeout.
  droid: {
    unauthorized: { first: 'error:TRANSPORT_UNAUTHENTICATED', withinMs: 60_000 },
    unreachable: { first: 'error:TRANSPORT_PROVIDER_UNREACHABLE', withinMs: 60_000 },
  },
};

/** An error event as `error:<code>` (a failure) or `notice:<code>` (the turn goes on). */
function label(event: AgentEvent): string | undefined {
  if (event.type === 'turn_complete') return 'turn_complete';
  if (event.type !== 'error') return undefined;
  return `${event.transient === true ? 'notice' : 'error'}:${event.code ?? '?'}`;
}

for (const id of Object.keys(EXPECTED) as CliId[]) {
  describeCli(
    id,
    'a provider error is an error',
    (cli) => {
      for (const [fault, expected] of Object.entries(EXPECTED[id]) as Array<
        [Fault, { first: string; withinMs: number }]
      >) {
        it(`${fault}: the first thing neo reports is ${expected.first}, within ${expected.withinMs / 1000}s`, async () => {
          const box = await sandbox();
          const model = await serveModel(SCRIPT, box.root);
          const url = fault === 'unreachable' ? await unreachableUrl() : model.url;
          const setup = await cliSetup(id, box, url, cli.bin);
          const wire = join(box.root, 'wire.jsonl');
          const backend = await packagedBackend(setup.backend, box);
          const started = Date.now();
          const { session, reader } = await startSession(backend, {
            cwd: box.repo,
            posture: 'acceptEdits',
            ...defined({ model: setup.model }),
            env: tapped(setup.env, setup.backend, wire),
            brief: `${fault.replace('-', ' ')}: say something`,
            options: { idleTimeoutMs: 120_000, unreachableGiveUpMs: 3_000 },
          });
          let events: AgentEvent[];
          try {
            // Notices (the CLI retrying) may come first; the read stops at the expected one or at the turn's end.
            events = await reader.until((e) => {
              const l = label(e);
              return l === expected.first || l === 'turn_complete' || l?.startsWith('error:') === true;
            }, expected.first);
          } finally {
            await session.stop();
          }
          const elapsed = Date.now() - started;
          keepCapture(wire, id, fault, box, url);
          const last = events.at(-1)!;
          expect(label(last), JSON.stringify(events)).toBe(expected.first);
          expect(elapsed).toBeLessThan(expected.withinMs);
          // A provider's failure is never the agent's answer.
          expect(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text)).toEqual([]);
          if (expected.first.startsWith('error:')) {
            const error = lastOf(events, 'error');
            expect(error.message).toMatch(new RegExp(`^${setup.backend}: `));
            if (fault === 'unauthorized') expect(error.message).toMatch(/401|authenticat|API key/i);
          }
          expect(processesIn(box.repo)).toEqual([]);
          await model.stop();
        }, 240_000);
      }
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}
