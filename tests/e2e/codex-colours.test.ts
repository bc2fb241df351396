/**
 * Codex colours its log on stderr unless NO_COLOR is set; the line that says it refused a patch
 * itself must still be read. A real capture of that line, coloured as codex's log prints it on
 * a terminal, replayed as the `codex` binary of a flow step run by the neo binary (no NO_COLOR
 * reaches codex: neo passes it only what its environment allowlist names).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { FAKE_CLI_DIR, fakeWithEnv } from '../contract/fake-backends.js';
import { git } from './flow-helpers.js';

const CAPTURE = join(FAKE_CLI_DIR, '..', 'cli-captures', 'codex', 'broken.jsonl');
const ESC = '\u001b';

/** codex's tracing line with the colours its log has on a terminal. */
function coloured(line: string): string {
  const match = /^(\S+) ERROR (codex_core::tools::router): error=(.*)$/.exec(line)!;
  return `${ESC}[2m${match[1]}${ESC}[0m ${ESC}[31mERROR${ESC}[0m ${ESC}[2m${match[2]}${ESC}[0m${ESC}[2m:${ESC}[0m ${ESC}[3merror${ESC}[0m${ESC}[2m=${ESC}[0m${match[3]}`;
}

describe('codex with colours on', () => {
  it('a patch codex refused itself is in the record as a failed call', async () => {
    const root = await tempDir('neo-e2e-codex-colour-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    const capture = join(root, 'broken-coloured.jsonl');
    const lines = readFileSync(CAPTURE, 'utf8')
      .trim()
      .split('\n')
      .map((text) => {
        const record = JSON.parse(text) as { dir: string; line: string };
        return JSON.stringify(
          record.dir === 'err' && record.line.includes('codex_core::tools::router')
            ? { ...record, line: coloured(record.line) }
            : record,
        );
      });
    expect(
      lines.filter((text) => (JSON.parse(text) as { line: string }).line.includes(`${ESC}[31mERROR`)),
    ).toHaveLength(1);
    writeFileSync(capture, `${lines.join('\n')}\n`);
    await writeTree(repo, {
      'README.md': 'hello\n',
      'plan.yaml':
        'name: colours\nsteps:\n  - id: fix\n    backend: codex\n    model: gpt-5.5\n    maxPosture: acceptEdits\n    brief: "broken: say something"\n    requireChange: false\n',
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = {
      NEO_HOME: home,
      HOME: join(root, 'home'),
      // The replay's settings travel in a wrapper: an agent CLI gets an allowlisted environment.
      // stdout and stderr are two pipes: only the captured gaps keep their order.
      NEO_CODEX_BIN: fakeWithEnv(
        join(FAKE_CLI_DIR, 'replay-cli.mjs'),
        { REPLAY_CAPTURE: capture, REPLAY_PACE: '0.5' },
        root,
      ),
    };
    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], { cwd: repo, env });
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      steps: Array<{ outputs: { sessionId?: string } }>;
    };
    const sessionId = summary.steps[0]!.outputs.sessionId!;
    expect(sessionId, run.stdout + run.stderr).toMatch(/^cs_/);
    const shown = await runNeo(['sessions', 'show', sessionId, '--events', '--json'], { cwd: repo, env });
    const events = (JSON.parse(shown.stdout) as { events: Array<{ event: Record<string, unknown> }> }).events.map(
      (e) => e.event,
    );
    const patch = events.find((e) => e.type === 'tool_use' && e.name === 'apply_patch');
    expect(patch, JSON.stringify(events.map((e) => e.type))).toBeDefined();
    expect(events.find((e) => e.type === 'tool_result' && e.id === patch!.id)).toMatchObject({
      isError: true,
      output: expect.stringMatching(/^apply_patch verification failed: Failed to read file to update \S*missing\.txt/),
    });
  });
});
