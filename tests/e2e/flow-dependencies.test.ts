/**
 * A worktree gets the checkout's installed dependencies (`workspace.dependencies: reuse`, the
 * default): its gate finds the test runner the checkout installed, in bwrap, with the checkout
 * under the user's (hidden) home; nothing confined writes the checkout's packages through it; a
 * flow with its own install step still works; a virtualenv's editable install is pointed at the
 * worktree's sources, so the gate tests the code the agent changed. `dependencies: none` gives
 * the worktree nothing, and `--dry-run` says which it will be.
 */
import { execa } from 'execa';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const HELPER = 'module.exports = { plus: (a, b) => a + b };\n';

/** Two packages of our own, packed to tarballs: a library and a test runner with a bin. */
const VENDOR = {
  'vendor-src/helper/package.json': JSON.stringify({ name: 'helper', version: '1.0.0', main: 'index.js' }),
  'vendor-src/helper/index.js': HELPER,
  'vendor-src/tester/package.json': JSON.stringify({ name: 'tester', version: '1.0.0', bin: { tester: 'bin.js' } }),
  'vendor-src/tester/bin.js':
    "#!/usr/bin/env node\nfor (const file of process.argv.slice(2)) require(require('node:path').resolve(file));\nconsole.log('tester: all passed');\n",
};

const LIBRARY = {
  '.gitignore': 'node_modules/\n',
  'evil.js': 'module.exports = { plus: () => 5 };\n',
  'src/add.js': "const { plus } = require('helper');\nmodule.exports = (a, b) => plus(a, -b);\n",
  'test/add.test.js':
    "const assert = require('node:assert');\nassert.strictEqual(require('../src/add.js')(2, 3), 5);\n",
  'fix.yaml': `turns:
  - - write: { path: node_modules/helper/index.js, content: "module.exports = { plus: () => 5 };" }
    - run: { command: "cp evil.js node_modules/helper/index.js", expectExit: 1 }
    - edit: { path: src/add.js, search: "plus(a, -b)", replace: "plus(a, b)" }
`,
};

const FLOW = (name: string, extra = '') => `name: ${name}
sandbox: bwrap
defaults: { backend: script, maxPosture: acceptEdits }
${extra}steps:
  - id: poke
    run: "echo 'module.exports = {};' > node_modules/helper/index.js || echo read-only"
  - id: fix
    needs: [poke]
    brief: make the test pass
    script: fix.yaml
    allowCommands: ["cp evil.js node_modules/helper/index.js"]
    verify: npm test
`;

/** The flow's own install step (the gate confined and offline: npm installs from the tarballs in the repository). */
const INSTALL_FLOW = `name: install
sandbox: bwrap
defaults: { backend: script, maxPosture: acceptEdits }
steps:
  - id: install
    run: npm ci --offline --no-audit --no-fund
  - id: fix
    needs: [install]
    brief: make the test pass
    script: edit.yaml
    verify: npm test
`;

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    status: string;
    cause: string | null;
    exitCode: number;
    workspace: { path: string };
  };

/** A library whose dependencies npm installed from local tarballs, committed, under a HOME that holds it. */
async function library(flows: Record<string, string>) {
  const root = await tempDir('neo-e2e-deps-');
  const repo = join(root, 'lib');
  const home = join(root, 'neo-home');
  await writeTree(repo, { ...VENDOR, ...LIBRARY, ...flows });
  await mkdir(join(repo, 'vendor'));
  for (const name of ['helper', 'tester'])
    await execa('npm', ['pack', '--pack-destination', join(repo, 'vendor'), join(repo, 'vendor-src', name)], {
      cwd: repo,
    });
  await writeTree(repo, {
    'package.json': JSON.stringify({
      name: 'lib',
      version: '1.0.0',
      scripts: { test: 'tester test/add.test.js' },
      dependencies: { helper: 'file:vendor/helper-1.0.0.tgz' },
      devDependencies: { tester: 'file:vendor/tester-1.0.0.tgz' },
    }),
  });
  await execa('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: repo });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  // The checkout lies under the user's home, which every sandbox hides.
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: root } });
  /** What the agent's tool calls answered, from the sessions neo kept. */
  const toolResults = () =>
    readdirSync(join(home, 'code-sessions')).flatMap((id) =>
      readFileSync(join(home, 'code-sessions', id, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"tool_result"'))
        .map((line) => (JSON.parse(line) as { event: { output: string } }).event.output),
    );
  return { repo, neo, toolResults };
}

describe('workspace.dependencies: a worktree gets the checkout’s installed dependencies', () => {
  it('reuse: the gate runs the checkout’s test runner in bwrap, and nothing confined writes the checkout’s packages', async () => {
    const { repo, neo, toolResults } = await library({ 'deps.flow.yaml': FLOW('deps') });
    const dry = await neo(['flow', 'run', 'deps.flow.yaml', '--dry-run']);
    expect(dry.stdout).toContain(
      `dependencies: node_modules lent from ${repo} (workspace.dependencies: reuse): the worktree's links to them, read-only in bwrap`,
    );
    const run = await neo(['flow', 'run', 'deps.flow.yaml', '--json']);
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const workspace = summary(run.stdout).workspace.path;
    // The run step found the checkout's package read-only (the agent's write and command, below, too).
    expect(run.stdout).toContain('cannot create node_modules/helper/index.js: Read-only file system');
    const answers = toolResults();
    expect(answers.find((output) => output.includes('node_modules/helper/index.js'))).toMatch(/outside|denied/);
    expect(answers.find((output) => output.includes('cp: cannot create'))).toContain('Read-only file system');
    expect(readFileSync(join(repo, 'node_modules', 'helper', 'index.js'), 'utf8')).toBe(HELPER);
    expect(readFileSync(join(workspace, 'src', 'add.js'), 'utf8')).toContain('plus(a, b)');
    // The mirror is a real folder git ignores: never part of the change nor of the run's commit.
    expect(lstatSync(join(workspace, 'node_modules')).isDirectory()).toBe(true);
    const committed = await git(workspace, 'show', '--name-only', '--format=', 'HEAD');
    expect(committed.trim()).toBe('src/add.js');
  }, 120_000);

  it('a flow with its own install step still works; `dependencies: none` lends nothing', async () => {
    const { repo, neo } = await library({
      'install.flow.yaml': INSTALL_FLOW,
      'edit.yaml': 'turns:\n  - - edit: { path: src/add.js, search: "plus(a, -b)", replace: "plus(a, b)" }\n',
      'none.flow.yaml': FLOW('none', 'workspace: { dependencies: none }\n'),
    });
    const installed = await neo(['flow', 'run', 'install.flow.yaml', '--json']);
    expect(summary(installed.stdout), installed.stdout + installed.stderr).toMatchObject({
      status: 'succeeded',
      exitCode: 0,
    });
    // npm ci replaced the worktree's mirror with its own install; the checkout's is as it was.
    const workspace = summary(installed.stdout).workspace.path;
    expect(lstatSync(join(workspace, 'node_modules', 'helper')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(repo, 'node_modules', 'helper', 'index.js'), 'utf8')).toBe(HELPER);

    const dry = await neo(['flow', 'run', 'none.flow.yaml', '--dry-run']);
    expect(dry.stdout).toContain(
      'dependencies: none lent (workspace.dependencies: none): install them in a run step before the agent step',
    );
    const none = await neo(['flow', 'run', 'none.flow.yaml', '--json']);
    expect(summary(none.stdout)).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    expect(none.stdout).toMatch(/tester: not found/);
  }, 120_000);
});

describe('workspace.dependencies unconfined', () => {
  it("an agent that writes the checkout's packages through the worktree's links fails the step as an escape", async () => {
    const { repo, neo } = await library({
      'open.flow.yaml': `name: open
defaults: { backend: script, maxPosture: acceptEdits }
steps:
  - id: fix
    brief: make the test pass
    script: through.yaml
    allowCommands: ["cp evil.js node_modules/helper/index.js"]
    verify: npm test
`,
      'through.yaml': `turns:
  - - run: { command: "cp evil.js node_modules/helper/index.js" }
    - edit: { path: src/add.js, search: "plus(a, -b)", replace: "plus(a, b)" }
`,
    });
    const run = await neo(['flow', 'run', 'open.flow.yaml', '--json']);
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({ cause: 'FLOW_ESCAPE', exitCode: 1 });
    expect(run.stdout).toContain(join(repo, 'node_modules'));
  }, 120_000);
});

describe('workspace.dependencies and the user working beside a run', () => {
  it("a cache a tool writes in the checkout's node_modules while the step runs (vite, vitest) is no escape, and is not lent", async () => {
    const { repo, neo } = await library({
      // What the user's own `vitest` in the checkout does while the run goes on.
      'cache.sh':
        'checkout=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")\n' +
        'mkdir -p "$checkout/node_modules/.vite/vitest" && echo "{}" > "$checkout/node_modules/.vite/vitest/results.json"\n' +
        'test ! -e node_modules/.vite\n',
      'open.flow.yaml': `name: open
defaults: { backend: script, maxPosture: acceptEdits }
steps:
  - id: fix
    brief: make the test pass
    script: beside.yaml
    allowCommands: ["sh cache.sh"]
    verify: npm test
`,
      'beside.yaml': `turns:
  - - run: { command: "sh cache.sh" }
    - edit: { path: src/add.js, search: "plus(a, -b)", replace: "plus(a, b)" }
`,
    });
    const run = await neo(['flow', 'run', 'open.flow.yaml', '--json']);
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(existsSync(join(repo, 'node_modules', '.vite', 'vitest', 'results.json'))).toBe(true);
  }, 120_000);
});

describe('a virtualenv lent to a worktree', () => {
  it("its editable install imports the worktree's sources, so the gate judges the agent's fix", async () => {
    const root = await tempDir('neo-e2e-venv-');
    const repo = join(root, 'calc');
    const home = join(root, 'neo-home');
    await writeTree(repo, {
      '.gitignore': '.venv/\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a - b\n',
      'fix.yaml': 'turns:\n  - - edit: { path: src/calc/__init__.py, search: "a - b", replace: "a + b" }\n',
      'py.flow.yaml': `name: py
sandbox: bwrap
defaults: { backend: script, maxPosture: acceptEdits }
steps:
  - id: fix
    brief: make the check pass
    script: fix.yaml
    verify: .venv/bin/calc-check
`,
    });
    await execa('/usr/bin/python3', ['-m', 'venv', '--without-pip', '.venv'], { cwd: repo });
    const site = join(repo, '.venv', 'lib', 'python3.11', 'site-packages');
    // What an editable install leaves: a .pth naming the checkout's sources, a console script whose #! names the venv.
    await writeTree(site, { '_calc.pth': `${join(repo, 'src')}\n` });
    await writeTree(join(repo, '.venv', 'bin'), {
      'calc-check': `#!${join(repo, '.venv', 'bin', 'python')}\nimport calc\nassert calc.add(2, 3) == 5, calc.add(2, 3)\nprint("calc: ok")\n`,
    });
    await execa('chmod', ['+x', join(repo, '.venv', 'bin', 'calc-check')]);
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    // The checkout's own check fails: its sources are the broken ones.
    expect((await execa(join(repo, '.venv', 'bin', 'calc-check'), { reject: false })).exitCode).not.toBe(0);

    const run = await runNeo(['flow', 'run', 'py.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home, HOME: root },
    });
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(run.stdout).toContain('calc: ok');
    expect(readFileSync(join(repo, 'src', 'calc', '__init__.py'), 'utf8')).toContain('a - b');
    expect(readFileSync(join(site, '_calc.pth'), 'utf8')).toBe(`${join(repo, 'src')}\n`);
  }, 120_000);
});
