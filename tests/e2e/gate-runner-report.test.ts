/**
 * A gate that trusted its runner's exit code alone went green while the tests failed: code under
 * test that ends the process with status 0 (`os._exit(0)` in the module the test imports, or in a
 * module the agent adds at the gate's folder that shadows one the runner imports). A recognised
 * runner's gate passes only on its own summary showing tests ran and none failed. A real fix
 * still passes.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const writes = (files: Record<string, string>) =>
  `turns:\n  - actions:\n${Object.entries(files)
    .map(([path, content]) => `      - write: { path: ${path}, content: ${JSON.stringify(content)} }\n`)
    .join('')}`;

const plan = (script: string, verify: string, protect: string) =>
  [
    'name: gate-report',
    'sandbox: bwrap',
    'defaults: { backend: script, maxPosture: acceptEdits }',
    'steps:',
    '  - id: fix',
    '    brief: make the tests pass',
    `    script: ${script}`,
    `    protect: ${protect}`,
    `    verify: ${verify}`,
    '',
  ].join('\n');

async function pythonWithPytest(): Promise<string | undefined> {
  for (const python of ['python3', 'python']) {
    const probe = await execa(python, ['-c', 'import sys, pytest; assert sys.version_info >= (3, 11)'], {
      reject: false,
    });
    if (probe.exitCode === 0) return python;
  }
  return undefined;
}
const PYTHON = await pythonWithPytest();

describe.skipIf(PYTHON === undefined)('a pytest gate and an agent that cheats it', () => {
  it('fails an early exit 0, in the code under test or a shadowing module, and passes a real fix', async () => {
    const root = await tempDir('neo-e2e-gate-report-py-');
    const repo = join(root, 'repo');
    const gate = '.venv/bin/python -m pytest -q';
    await writeTree(repo, {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a - b\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
      '.gitignore': '.venv/\n',
      'exit.yaml': writes({ 'src/calc/__init__.py': 'import os\nos._exit(0)\n' }),
      'shadow.yaml': writes({ 'argparse.py': 'import os\nos._exit(0)\n' }),
      'right.yaml': writes({ 'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n' }),
      'exit.flow.yaml': plan('exit.yaml', gate, "['@python', 'tests/**']"),
      'shadow.flow.yaml': plan('shadow.yaml', gate, "['@python', 'tests/**']"),
      'right.flow.yaml': plan('right.yaml', gate, "['@python', 'tests/**']"),
    });
    await execa(PYTHON!, ['-m', 'venv', '--system-site-packages', '--without-pip', '.venv'], { cwd: repo });
    await commitAll(repo);
    const neo = (flow: string) =>
      runNeo(['flow', 'run', flow], { cwd: repo, env: { NEO_HOME: join(root, 'home') }, timeout: 120_000 });

    const dry = await runNeo(['flow', 'run', 'exit.flow.yaml', '--dry-run'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home') },
    });
    expect(dry.stdout).toMatch(/ · gate judged by pytest's summary( ·|$)/m);

    const exited = await neo('exit.flow.yaml');
    expect(exited.exitCode, exited.stdout + exited.stderr).toBe(3);
    expect(exited.stdout).toContain(
      `FLOW_GATE_FAILED: the check \`${gate}\` still fails after 1 attempt (exit 0 without pytest's summary: no line like \`3 passed in 0.12s\`; the tests may never have run)`,
    );

    const shadowed = await neo('shadow.flow.yaml');
    expect(shadowed.exitCode, shadowed.stdout + shadowed.stderr).toBe(3);
    expect(shadowed.stdout).toContain("exit 0 without pytest's summary");

    const fixed = await neo('right.flow.yaml');
    expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain(`gate \`${gate}\` passed`);
  }, 240_000);
});

describe('an `npm test` gate running `node --test`, and code under test that exits 0 at import', () => {
  it('fails it when the base ran more tests than the agent’s tree reports (`baseline`)', async () => {
    const root = await tempDir('neo-e2e-gate-report-node-');
    const repo = join(root, 'repo');
    const gate = '{ run: npm test, baseline: true }';
    await writeTree(repo, {
      'package.json': JSON.stringify({ name: 'sum', private: true, scripts: { test: 'node --test' } }),
      'src/sum.js': 'module.exports = (a, b) => a - b;\n',
      'test/sum.test.js': [
        "const test = require('node:test');",
        "const assert = require('node:assert');",
        "const sum = require('../src/sum.js');",
        "test('adds', () => assert.strictEqual(sum(2, 3), 5));",
        "test('adds zero', () => assert.strictEqual(sum(2, 0), 2));",
        '',
      ].join('\n'),
      'exit.yaml': writes({ 'src/sum.js': 'process.exit(0);\n' }),
      'right.yaml': writes({ 'src/sum.js': 'module.exports = (a, b) => a + b;\n' }),
      // The gate runs the protected original; what names its runner is that original too, never
      // the agent's rewrite (in bwrap the workspace's path inside the sandbox is not the tree's).
      'manifest.yaml': writes({
        'src/sum.js': 'process.exit(0);\n',
        'package.json': JSON.stringify({ name: 'sum', private: true, scripts: { test: 'node test/sum.test.js' } }),
      }),
      'exit.flow.yaml': plan('exit.yaml', gate, "['@node', 'test/**']"),
      'manifest.flow.yaml': plan('manifest.yaml', gate, "['@node', 'test/**']\n    allowProtectedEdits: true"),
      'right.flow.yaml': plan('right.yaml', gate, "['@node', 'test/**']"),
    });
    await commitAll(repo);
    const neo = (flow: string) =>
      runNeo(['flow', 'run', flow], { cwd: repo, env: { NEO_HOME: join(root, 'home') }, timeout: 120_000 });

    const dry = await runNeo(['flow', 'run', 'exit.flow.yaml', '--dry-run'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home') },
    });
    expect(dry.stdout).toContain(
      " · gate judged by the summary of the runner package.json's `test` script runs (its exit code if none is recognised)",
    );

    const exited = await neo('exit.flow.yaml');
    expect(exited.exitCode, exited.stdout + exited.stderr).toBe(3);
    expect(exited.stdout).toContain(
      "FLOW_GATE_FAILED: the check `npm test` still fails after 1 attempt (exit 0, but node --test's summary counts 1 test, fewer than the 2 the step's base ran)",
    );

    const rewritten = await neo('manifest.flow.yaml');
    expect(rewritten.exitCode, rewritten.stdout + rewritten.stderr).toBe(3);
    expect(rewritten.stdout).toContain(
      "(exit 0, but node --test's summary counts 1 test, fewer than the 2 the step's base ran)",
    );

    const fixed = await neo('right.flow.yaml');
    expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0);
  }, 240_000);
});

const GO = (await execa('go', ['version'], { reject: false })).exitCode === 0;

describe.skipIf(!GO)('a `go test -v` gate and an `init` that exits 0', () => {
  it('fails it: the package’s `ok` has no `PASS` of its test binary before it', async () => {
    const root = await tempDir('neo-e2e-gate-report-go-');
    const repo = join(root, 'repo');
    const gate = 'go test -v ./...';
    await writeTree(repo, {
      'go.mod': 'module example.com/calc\n\ngo 1.19\n',
      'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a - b }\n',
      'calc_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n',
      'exit.yaml': writes({
        'calc.go':
          'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n\nfunc Add(a, b int) int { return a - b }\n',
      }),
      'right.yaml': writes({ 'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n' }),
      'exit.flow.yaml': plan('exit.yaml', gate, "['@go', '*_test.go']"),
      'right.flow.yaml': plan('right.yaml', gate, "['@go', '*_test.go']"),
    });
    await commitAll(repo);
    const env = { NEO_HOME: join(root, 'home'), HOME: join(root, 'user'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const neo = (flow: string) => runNeo(['flow', 'run', flow], { cwd: repo, env, timeout: 180_000 });

    const exited = await neo('exit.flow.yaml');
    expect(exited.exitCode, exited.stdout + exited.stderr).toBe(3);
    expect(exited.stdout).toContain(
      `FLOW_GATE_FAILED: the check \`${gate}\` still fails after 1 attempt (exit 0 without go test -v's summary: no \`PASS\` line before each package's \`ok\`; the tests may never have run)`,
    );

    const fixed = await neo('right.flow.yaml');
    expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0);
  }, 360_000);
});

describe('a gate that runs another folder’s `npm test` (`cd packages/a && npm test`)', () => {
  it('is not judged by the runner of the gate folder’s own `test` script', async () => {
    const root = await tempDir('neo-e2e-gate-report-cd-');
    const repo = join(root, 'repo');
    const gate = 'cd packages/a && npm test';
    await writeTree(repo, {
      'package.json': JSON.stringify({ name: 'mono', private: true, scripts: { test: 'vitest run' } }),
      'packages/a/package.json': JSON.stringify({ name: 'a', private: true, scripts: { test: 'node --test' } }),
      'packages/a/test/a.test.js': "require('node:test')('a', () => {});\n",
      'right.yaml': writes({ 'packages/a/index.js': 'module.exports = 1;\n' }),
      'right.flow.yaml': plan('right.yaml', gate, "['@node', 'packages/a/test/**']"),
    });
    await commitAll(repo);
    const run = await runNeo(['flow', 'run', 'right.flow.yaml'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home') },
      timeout: 120_000,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`gate \`${gate}\` passed`);
  }, 180_000);
});
