/**
 * `neo init` reads the repository it scaffolds for: the ecosystem by manifest and lockfile, the
 * gate from the project's own test command, `protect:` from the ecosystem's preset and where the
 * tests are, and whether the checkout has dependencies installed to lend a run's worktree. The
 * Python flow it writes then fixes a project with its gate in bwrap, offline, on the lent venv.
 */
import { execa } from 'execa';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const FLOW = join('.neo', 'flows', 'check-and-fix.flow.yaml');
/** No agent CLI on this PATH: the scaffold's backend is then the first defined one, claude-code. */
const PATH = '/usr/bin:/bin';

async function project(files: Record<string, string>, env: Record<string, string> = {}) {
  const root = await tempDir('neo-e2e-init-eco-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  await writeTree(repo, files);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) =>
    runNeo(args, { cwd: repo, env: { NEO_HOME: home, PATH, NEO_CLAUDE_CODE_BIN: '', ...env } });
  const flow = () => readFileSync(join(repo, FLOW), 'utf8');
  return { root, repo, neo, flow };
}

const lines = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line));

describe('neo init detects the ecosystem', () => {
  it('pnpm with a test script and node_modules installed: `pnpm test`, @node and the test globs, node_modules lent', async () => {
    const { repo, neo, flow } = await project({
      'package.json': JSON.stringify({ name: 'p', scripts: { test: 'vitest run' }, devDependencies: { vitest: '4' } }),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      '.gitignore': 'node_modules/\n',
      'src/a.js': '',
      'src/a.spec.js': '',
    });
    await writeTree(repo, { 'node_modules/vitest/package.json': '{}' });
    const init = await neo(['init']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(lines(init.stdout, /^(project|dependencies|warning):/)).toEqual([
      'project: node (pnpm); gate: `pnpm test` (package.json scripts.test: vitest run); protect: @node **/*.spec.*',
      "dependencies: each run's worktree is lent your checkout's node_modules, read-only",
      'warning: backend claude-code is not installed here (install: npm install -g @anthropic-ai/claude-code; or set NEO_CLAUDE_CODE_BIN); `neo backends list` shows the others',
    ]);
    expect(lines(flow(), /^\s+(backend|run|protect|dependencies):/)).toEqual([
      '  backend: claude-code',
      '  dependencies: reuse',
      '    protect: ["@node", "**/*.spec.*"]',
      '      run: "pnpm test"',
    ]);
    expect(flow()).toContain(
      "  # reuse: the worktree is lent your checkout's node_modules, read-only, in milliseconds.\n",
    );
    expect(flow()).toContain('brief: "Make `pnpm test` pass without weakening any test."');
    const validate = await neo(['validate']);
    expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
  });

  it('npm without a test script or an install: a gate to check, and install first', async () => {
    const { neo, flow } = await project({
      'package.json': JSON.stringify({
        name: 'p',
        scripts: { test: 'echo "Error: no test specified" && exit 1', posttest: 'npx npm audit' },
        dependencies: { clsx: '2' },
      }),
      'package-lock.json': '{}',
    });
    const init = await neo(['init']);
    expect(lines(init.stdout, /^(project|dependencies|warning|note):/).slice(0, 4)).toEqual([
      'project: node (npm); gate: `npm test` (package.json has no "test" script); protect: @node test/** tests/** **/__tests__/** **/*.test.* **/*.spec.*',
      'warning: package.json has no "test" script: set the gate (verify.run) to your test command',
      "warning: nothing is installed in your checkout to lend a run's worktree: install first (`npm ci`), or the gate fails",
      'note: `npm test` runs posttest: npx npm audit in the gate too, offline: if one needs the network or a tool not installed, make the gate `npm test --ignore-scripts` (the test script alone)',
    ]);
    expect(flow()).toContain(
      '    # The gate: CHECK THIS: package.json has no "test" script; put your test command here.\n',
    );
  });

  it('go and rust: their test commands and presets, and how to have their dependencies offline', async () => {
    const go = await project({ 'go.mod': 'module example.com/m\n', 'm.go': '', 'm_test.go': '' });
    const goInit = await go.neo(['init']);
    expect(lines(goInit.stdout, /^(project|note):/)).toEqual([
      'project: go (go); gate: `go test ./...` (go.mod); protect: @go **/*_test.go',
      'note: the module cache (GOMODCACHE) and a Go install under your home are lent read-only to the sandbox, offline (GOPROXY=off): run `go mod download` in your checkout when a dependency changes',
    ]);
    expect(lines(go.flow(), /^\s+(run|protect):/)).toEqual([
      '    protect: ["@go", "**/*_test.go"]',
      '      run: "go test ./..."',
    ]);
    const rust = await project({
      'Cargo.toml': '[package]\nname = "r"\n',
      'Cargo.lock': '',
      'src/lib.rs': '',
      'tests/it.rs': '',
    });
    const rustInit = await rust.neo(['init']);
    expect(lines(rustInit.stdout, /^project:/)).toEqual([
      'project: rust (cargo); gate: `cargo test --offline` (Cargo.toml); protect: @rust tests/**',
    ]);
  });

  it('rust without a committed Cargo.lock (a library): the lockfile cargo writes on every build is not protected', async () => {
    // servo/rust-fnv: `cargo test` writes the Cargo.lock its .gitignore leaves out, and the step
    // failed as a protected edit whatever the agent did.
    const rust = await project({
      'Cargo.toml': '[package]\nname = "r"\n',
      '.gitignore': 'target\nCargo.lock\n',
      'lib.rs': '',
    });
    const init = await rust.neo(['init']);
    expect(lines(init.stdout, /^(project|note):/)).toEqual([
      'project: rust (cargo); gate: `cargo test --offline` (Cargo.toml); protect: **/Cargo.toml **/build.rs **/.cargo/config **/.cargo/config.toml **/rust-toolchain **/rust-toolchain.toml tests/** benches/**',
      "note: ~/.cargo's registry and git checkouts and ~/.rustup's toolchains are lent read-only to the sandbox, offline: run `cargo fetch` in your checkout when a dependency changes",
      'note: Cargo.lock is not committed here, and cargo writes one on every build: protect is the @rust preset without it, or each run would fail as a protected edit',
    ]);
    expect(lines(rust.flow(), /^\s+# @rust/)).toEqual([
      '    # @rust without Cargo.lock (not committed here; cargo writes it on every build): manifests, test-runner configs (docs/flows.md); then the tests.',
    ]);
  });

  it('python: pytest through the venv it finds, else install first; a test tool under the home is named', async () => {
    const files = {
      'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
      'calc.py': '',
      'tests/test_calc.py': '',
    };
    const root = await tempDir('neo-e2e-init-home-');
    await writeTree(root, { 'bin/python3': '#!/bin/sh\n' });
    chmodSync(join(root, 'bin', 'python3'), 0o755);
    const bare = await project(files, { HOME: root, PATH: `${join(root, 'bin')}:${PATH}` });
    const init = await bare.neo(['init']);
    expect(lines(init.stdout, /^(project|warning):/).slice(0, 3)).toEqual([
      'project: python (pip); gate: `python3 -m pytest -q` (pytest, for the test files found); protect: @python **/tests/** **/test_*.py',
      "warning: no virtualenv in your checkout to lend a run's worktree: the gate runs this machine's `python3`; if the tests need the project installed or packages it lacks, install them first (`python3 -m venv .venv && .venv/bin/pip install -e . pytest`)",
      `warning: \`python3\` is ${join(root, 'bin', 'python3')}, under your home, which the sandbox hides: the gate will not find it under \`sandbox: bwrap\` (install it outside your home, or use a virtualenv)`,
    ]);
  });

  it('npm from a Node installed in the home (nvm) is not warned of: the sandbox lends that install', async () => {
    const root = await tempDir('neo-e2e-init-nvm-');
    const bin = join(root, '.nvm', 'versions', 'node', 'v20.0.0', 'bin');
    await writeTree(root, {
      '.nvm/versions/node/v20.0.0/bin/node': '#!/bin/sh\n',
      '.nvm/versions/node/v20.0.0/bin/npm': '#!/bin/sh\n',
    });
    for (const name of ['node', 'npm']) chmodSync(join(bin, name), 0o755);
    const { neo } = await project(
      { 'package.json': JSON.stringify({ name: 'p', scripts: { test: 'node --test' } }) },
      { HOME: root, PATH: `${bin}:${PATH}` },
    );
    const init = await neo(['init']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).not.toMatch(/under your home/);
  });

  it('python3 from pyenv in the home is not warned of: the sandbox lends the pyenv root', async () => {
    const root = await tempDir('neo-e2e-init-pyenv-');
    await writeTree(root, { '.pyenv/libexec/pyenv': '#!/bin/sh\n', '.pyenv/shims/python3': '#!/bin/sh\n' });
    chmodSync(join(root, '.pyenv', 'shims', 'python3'), 0o755);
    const { neo } = await project(
      { 'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n', 'tests/test_calc.py': '' },
      { HOME: root, PATH: `${join(root, '.pyenv', 'shims')}:${PATH}` },
    );
    const init = await neo(['init']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toContain('gate: `python3 -m pytest -q`');
    expect(init.stdout).not.toMatch(/under your home/);
  });

  it("python: tox's test command is the project's own; a venv git does not ignore is said, not lent", async () => {
    const { repo, neo } = await project({
      'pyproject.toml': '[project]\nname = "colors"\n',
      'tox.ini': '[tox]\nenvlist = py311\n\n[testenv]\ncommands = python -m unittest discover -p *_test.py {posargs}\n',
      'colors/__init__.py': '',
      'colors/tests/ansi_test.py': '',
    });
    await writeTree(repo, { '.venv/pyvenv.cfg': 'home = /usr/bin\n' });
    const init = await neo(['init']);
    expect(lines(init.stdout, /^(project|dependencies|warning):/).slice(0, 2)).toEqual([
      "project: python (pip); gate: `.venv/bin/python -m unittest discover -p '*_test.py'` (tox.ini [testenv] commands: python -m unittest discover -p *_test.py {posargs}); protect: @python **/tests/** **/*_test.py",
      "warning: your .venv is not ignored by git, so a run's worktree is not lent it: add `.venv/` to .gitignore and commit that",
    ]);
  });

  it("python: a tox command that is no plain argv is not spliced into the gate's shell", async () => {
    // tox runs its commands without a shell: `;` and `$(…)` there are arguments, in `sh -c` code.
    const { neo, flow } = await project({
      'pyproject.toml': '[project]\nname = "colors"\n',
      'tox.ini': '[testenv]\ncommands = python -m pytest tests; touch $(echo pwned) {posargs}\n',
      'tests/test_x.py': '',
    });
    const init = await neo(['init']);
    expect(init.exitCode, init.stderr).toBe(0);
    const gate = lines(flow(), /^\s+run: /);
    expect(gate).toEqual(['      run: "python3 -m pytest -q"']);
  });
});

/** A Python interpreter that imports pytest, for a venv that sees its packages (none: the run test is skipped). */
async function pythonWithPytest(): Promise<string | undefined> {
  for (const python of ['python3', 'python']) {
    const probe = await execa(python, ['-c', 'import pytest'], { reject: false });
    if (probe.exitCode === 0) return python;
  }
  return undefined;
}

const PYTHON = await pythonWithPytest();

describe.skipIf(PYTHON === undefined)('the Python flow neo init writes', () => {
  it('fixes a broken function with pytest as its gate, in bwrap, offline, on the checkout’s lent venv', async () => {
    const { repo, neo, flow } = await project(
      {
        'pyproject.toml':
          '[project]\nname = "calc"\nversion = "0.1.0"\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        'src/calc/__init__.py': 'def add(a, b):\n    return a - b\n',
        'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
        '.gitignore': '.venv/\n',
      },
      { PATH: process.env.PATH ?? PATH },
    );
    await execa(PYTHON!, ['-m', 'venv', '--system-site-packages', '--without-pip', '.venv'], { cwd: repo });
    const init = await neo(['init']);
    expect(init.stdout).toContain("dependencies: each run's worktree is lent your checkout's .venv, read-only");
    expect(flow()).toMatch(/^sandbox: bwrap$/m);
    expect(lines(flow(), /^\s+run:/)).toEqual(['      run: ".venv/bin/python -m pytest -q"']);
    writeFileSync(
      join(repo, FLOW),
      flow()
        .replace(/backend: \S+/, 'backend: script')
        .replace('    verify:', '    script: scripts/fix.yaml\n    verify:'),
    );
    mkdirSync(join(repo, '.neo', 'flows', 'scripts'));
    writeFileSync(
      join(repo, '.neo', 'flows', 'scripts', 'fix.yaml'),
      'turns:\n  - - edit: { path: src/calc/__init__.py, search: "a - b", replace: "a + b" }\n',
    );
    writeFileSync(join(repo, 'notes.txt'), 'mine\n');
    const run = await neo(['flow', 'run', FLOW]);
    // What is uncommitted outside `.neo/` is said to be left out; `.neo/` is read from the checkout.
    expect(lines(run.stdout, /^warning: uncommitted/)).toEqual([
      expect.stringMatching(
        /^warning: uncommitted changes in the project are not in the worktree \(it starts from HEAD = [0-9a-f]{10}\)$/,
      ),
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('gate `.venv/bin/python -m pytest -q` passed (attempt 1/3)');
    const workspace = /workspace: (\S+)/.exec(run.stdout)![1]!;
    expect(readFileSync(join(workspace, 'src', 'calc', '__init__.py'), 'utf8')).toContain('a + b');
    expect(readFileSync(join(repo, 'src', 'calc', '__init__.py'), 'utf8')).toContain('a - b');
  });
});
