import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../engine/transports/index.js';
import { keepCapture, tapped } from './harness/capture.js';
import { cliSetup, type CliId } from './harness/cli-setups.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';
import { defined } from '../../engine/util/defined.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'tool-shapes.yaml');

/** Runs one prompt to the end of its turn, answering every ask with `allow`; returns the events. */
async function runTurn(id: CliId, cli: { bin: string }, prompt: string, allow: boolean) {
  const box = await sandbox();
  const model = await serveModel(SCRIPT, box.root);
  const setup = await cliSetup(id, box, model.url, cli.bin);
  const wire = join(box.root, 'wire.jsonl');
  const backend = await packagedBackend(setup.backend, box);
  const { session, reader } = await startSession(backend, {
    cwd: box.repo,
    posture: allow ? 'acceptEdits' : 'default',
    ...defined({ model: setup.model }),
    env: tapped(setup.env, setup.backend, wire),
    brief: prompt,
    options: { idleTimeoutMs: 120_000 },
  });
  const events: AgentEvent[] = [];
  try {
    for (;;) {
      const event = await reader.next();
      if (event === undefined) break;
      events.push(event);
      if (event.type === 'clarify')
        await session.answer(event.clarificationId, { allow, reason: 'refused by the test' });
      if (event.type === 'turn_complete' || (event.type === 'error' && event.transient !== true)) break;
    }
  } finally {
    await session.stop();
  }
  keepCapture(wire, id, prompt.split(':')[0]!, box, model.url);

  expect(processesIn(box.repo)).toEqual([]);
  await model.stop();
  return { events, box, editToolNames: backend.data.editToolNames ?? [] };
}

const EDITS: CliId[] = ['claude', 'codex', 'opencode', 'copilot', 'droid', 'gemini'];

for (const id of EDITS) {
  describeCli(
    id,
    'tool calls and results as the CLI reports them',
    (cli) => {
      it('an edit names its files (paths on tool_use) and every result keeps what the CLI said', async () => {
        const { events, box, editToolNames } = await runTurn(id, cli, 'edits: create, edit, run', true);
        expect(readFileSync(join(box.repo, 'new.txt'), 'utf8')).toBe('new\n');
        expect(readFileSync(join(box.repo, 'README.md'), 'utf8')).toBe('# edited repo\n');
        // What the diff fallback outside git reads: the edit tools' paths, inside the workspace.
        const edited = events.flatMap((e) =>
          e.type === 'tool_use' && editToolNames.includes(e.name)
            ? (e.paths ?? []).map((p) => relative(box.repo, resolve(box.repo, p)))
            : [],
        );
        expect([...new Set(edited)].sort(), JSON.stringify(events)).toEqual(['README.md', 'new.txt']);
        const results = events.filter((e) => e.type === 'tool_result');
        // codex 0.171 sometimes reports no item at all for its exec_command (see docs/architecture.md).
        expect(results.length).toBeGreaterThanOrEqual(1);
        for (const result of results) expect(result.output, JSON.stringify(result)).not.toBe('');
      }, 300_000);
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}

for (const id of ['codex', 'droid'] as CliId[]) {
  describeCli(
    id,
    'a refused edit as the CLI reports it',
    (cli) => {
      it('a patch or file the driver refuses leaves a tool_use and a failed tool_result with what the CLI said', async () => {
        const { events, box } = await runTurn(id, cli, 'refused: write refused.txt', false);
        expect(existsSync(join(box.repo, 'refused.txt'))).toBe(false);
        const use = events.find((e) => e.type === 'tool_use' && e.paths?.some((p) => p.endsWith('refused.txt')));
        expect(use, JSON.stringify(events)).toBeDefined();
        const result = events.find((e) => e.type === 'tool_result' && e.id === (use as { id: string }).id);
        expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/\S/) });
      }, 300_000);
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}

describeCli(
  'codex',
  'a patch codex refuses itself',
  (cli) => {
    it('a patch that does not verify leaves an apply_patch call and its failed result (codex logs it only on stderr)', async () => {
      const { events } = await runTurn('codex', cli, 'broken: patch missing.txt', true);
      const use = events.find((e) => e.type === 'tool_use' && e.name === 'apply_patch');
      expect(use, JSON.stringify(events)).toBeDefined();
      const result = events.find((e) => e.type === 'tool_result' && e.id === (use as { id: string }).id);
      expect(result).toMatchObject({
        isError: true,
        output: expect.stringMatching(/^apply_patch verification failed/),
      });
    }, 300_000);
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
