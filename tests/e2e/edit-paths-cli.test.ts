import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_CLI_DIR, fakeWithEnv } from '../contract/fake-backends.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const CAPTURES = join(FAKE_CLI_DIR, '..', 'cli-captures');
const REPLAY = join(FAKE_CLI_DIR, 'replay-cli.mjs');

const plan = (backend: string) => `name: fix
workspace: { isolation: inplace }
defaults: { maxPosture: acceptEdits }
steps:
  - { id: fix, backend: ${backend}, posture: acceptEdits, brief: Fix the readme. }
`;

describe('neo flow run outside git: the edit-path fallback reads each CLI’s own shapes', () => {
  for (const [cli, backend] of [
    ['opencode', 'opencode'],
    ['copilot', 'copilot'],
    ['droid', 'droid'],
    ['gemini', 'gemini'],
  ] as const) {
    it(`${cli}: the files its edit tools name are the step's change (not FLOW_NO_CHANGE)`, async () => {
      const root = await tempDir('neo-e2e-paths-');
      const dir = join(root, 'p');
      await writeTree(dir, { 'plan.yaml': plan(backend), 'README.md': '# scratch repo\n' });
      // The real CLI creating new.txt and editing README.md, replayed (no git repository here).
      const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
        cwd: dir,
        env: {
          NEO_HOME: join(root, 'home'),
          [`NEO_${backend.toUpperCase()}_BIN`]: fakeWithEnv(
            REPLAY,
            { REPLAY_CAPTURE: join(CAPTURES, cli, 'edits.jsonl') },
            root,
          ),
        },
      });
      const completed = result.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map(
          (l) =>
            JSON.parse(l) as {
              type: string;
              event?: {
                type: string;
                status?: string;
                outputs?: { diff?: { files: Array<{ path: string }>; source: string } };
              };
            },
        )
        .find((o) => o.event?.type === 'step.completed')?.event;
      expect(completed?.status, result.stdout).toBe('succeeded');
      expect(completed?.outputs?.diff?.source).toBe('tool-events');
      expect(completed?.outputs?.diff?.files.map((f) => f.path).sort()).toEqual(['README.md', 'new.txt']);
      expect(result.exitCode).toBe(0);
    });
  }
});
