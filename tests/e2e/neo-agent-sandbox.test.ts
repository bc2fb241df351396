/**
 * neo's own agent (`backend: neo`) under `sandbox: bwrap`, through the neo binary on the scripted
 * model server: its `exec` tool and its background shells run in the session's sandbox, the one
 * every command of the run gets — the checkout and the user's home out of reach, and whatever a
 * background shell left (a `setsid` child with a cleared environment, outside its group and untagged, included) gone when the
 * session ends.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Processes whose argv holds `marker` (a sleep with an odd duration no other test uses). */
function running(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(join('/proc', entry, 'cmdline'), 'utf8')
        .split('\0')
        .join(' ');
      if (argv.includes(marker)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../sum.js')(2, 3), 5);\n";

async function project(
  turns: unknown[],
  step = '    requireChange: false\n',
  files: Record<string, string> = {},
  at?: string,
) {
  server = await startModelServer({ script: { turns: turns as never } });
  const root = at ?? (await tempDir('neo-e2e-neo-box-'));
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  const userHome = join(root, 'user');
  await writeTree(repo, {
    'README.md': 'hello\n',
    'work.flow.yaml': [
      'name: work',
      'sandbox: bwrap',
      'defaults: { backend: neo, maxPosture: full, posture: full, maxRounds: 2 }',
      'steps:',
      '  - id: work',
      '    brief: do the work',
      step,
    ].join('\n'),
    ...files,
  });
  await writeTree(home, {
    'neo.yaml': scriptedAgentConfig(server.url),
  });
  await writeTree(userHome, { '.ssh/id_rsa': 'PRIVATE KEY OF THE USER\n' });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = () =>
    runNeo(['flow', 'run', 'work.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home, HOME: userHome, CHECKOUT: repo, NEO_TEST_KEY: 'sk-test' },
    });
  return { repo, home, userHome, neo, server };
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

describe("neo's own agent in bwrap", () => {
  it('exec cannot write the checkout nor read the user’s home: what it printed never reaches the model', async () => {
    const {
      repo,
      neo,
      server: model,
    } = await project([
      {
        tools: [
          {
            name: 'exec',
            arguments: {
              command:
                'echo evil > "$CHECKOUT/README.md" || echo no-checkout; cat "$HOME/.ssh/id_rsa" || echo no-key; cp "$HOME/.ssh/id_rsa" stolen.txt || echo no-copy',
            },
          },
        ],
      },
      { text: 'done' },
    ]);
    const result = await neo();
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
    const sent = model.requests.map((r) => JSON.stringify(r.body)).join('\n');
    // The command ran (its output went back to the model), confined.
    expect(sent).toMatch(/no-key/);
    expect(sent).not.toMatch(/PRIVATE KEY OF THE USER/);
  });

  it('a background shell, and a child it moved out of its process group, die when the session ends', async () => {
    const { neo } = await project([
      {
        tools: [
          {
            name: 'exec',
            arguments: {
              command: 'setsid env -i sleep 3217 > /dev/null 2>&1 < /dev/null & sleep 3218',
              run_in_background: true,
            },
          },
        ],
      },
      { text: 'left it running' },
    ]);
    const result = await neo();
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(running('sleep 3218')).toEqual([]);
    expect(running('sleep 3217')).toEqual([]);
  });

  it('a background shell that keeps rewriting every copy of the test it can reach does not change the verdict', async () => {
    // The agent leaves the code wrong; its background job replaces each test/sum.test.js under
    // NEO_HOME's runs (the gate's copy, the protected originals) with one that passes.
    const weaken =
      'while :; do find "$NEOHOME/runs" -path "*/test/sum.test.js" 2>/dev/null | while read -r f; do printf "process.exit(0)\\n" > "$f"; done; sleep 0.02; done';
    const root = await tempDir('neo-e2e-neo-box-home-');
    const { repo, neo } = await project(
      [
        {
          tools: [
            {
              name: 'exec',
              arguments: { command: `NEOHOME=${join(root, 'neo-home')}; ${weaken}`, run_in_background: true },
            },
          ],
        },
        { text: 'the tests pass now' },
      ],
      "    protect: ['test/**']\n    verify: node test/sum.test.js\n    requireChange: false\n",
      { 'sum.js': 'module.exports = (a, b) => a - b;\n', 'test/sum.test.js': TEST },
      root,
    );
    const result = await neo();
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({
      status: 'failed',
      cause: 'FLOW_GATE_FAILED',
      exitCode: 3,
    });
    expect(readFileSync(join(repo, 'test', 'sum.test.js'), 'utf8')).toBe(TEST);
  });
});
