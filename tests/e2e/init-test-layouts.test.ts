/**
 * Layouts met in new-user trials on public repositories: where a project keeps its tests decides
 * what the scaffolded `protect:` holds, and a test the gate runs but `protect:` misses is one an
 * agent can rewrite to pass the gate.
 */
import { execa } from 'execa';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

const FLOW = join('.neo', 'flows', 'check-and-fix.flow.yaml');

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-init-layout-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  await writeTree(repo, files);
  await commitAll(repo);
  const neo = (args: string[]) =>
    runNeo(args, { cwd: repo, env: { NEO_HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const flow = () => readFileSync(join(repo, FLOW), 'utf8');
  return { repo, neo, flow };
}

/** The scaffolded flow on the script backend, playing `turns` as its agent. */
function scripted(repo: string, flow: string, turns: string) {
  writeFileSync(
    join(repo, FLOW),
    flow
      .replace(/backend: \S+/, 'backend: script')
      .replace('    verify:', '    script: scripts/agent.yaml\n    verify:'),
  );
  mkdirSync(join(repo, '.neo', 'flows', 'scripts'), { recursive: true });
  writeFileSync(join(repo, '.neo', 'flows', 'scripts', 'agent.yaml'), `turns:\n${turns}`);
}

describe('neo init on test layouts of real repositories', () => {
  it('a root test.js (ava, tape, node --test) and a tsd test-d file are protected: rewriting test.js fails the gate', async () => {
    const { repo, neo, flow } = await project({
      'package.json': JSON.stringify({ name: 'slug', type: 'module', scripts: { test: 'node test.js' } }),
      'index.js': 'export const slug = (s) => s.toUpperCase();\n',
      'index.test-d.ts': '',
      'test.js':
        "import assert from 'node:assert';\nimport { slug } from './index.js';\nassert.equal(slug('A'), 'a');\n",
    });
    const init = await neo(['init']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      'project: node (npm); gate: `npm test` (package.json scripts.test: node test.js); protect: @node **/test.* **/*.test-d.*\n',
    );
    scripted(repo, flow(), '  - - write: { path: test.js, content: "// nothing to check\\n" }\n');
    const run = await neo(['flow', 'run', FLOW]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('the agent changed protected path test.js');
  });

  it("a virtualenv ignored by its own .gitignore (uv, virtualenv, Python 3.13's venv) is lent to the worktree", async () => {
    const { repo, neo, flow } = await project({
      'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a - b\n',
      'tests/testcalc.py':
        'import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n',
    });
    await execa('python3', ['-m', 'venv', '--without-pip', '.venv'], { cwd: repo });
    writeFileSync(join(repo, '.venv', '.gitignore'), '*\n');
    // An editable install of the project: the lent venv imports the workspace's sources.
    const lib = join(repo, '.venv', 'lib');
    writeFileSync(join(lib, readdirSync(lib)[0]!, 'site-packages', 'calc.pth'), `${join(repo, 'src')}\n`);
    const init = await neo(['init']);
    expect(init.stdout).toContain("dependencies: each run's worktree is lent your checkout's .venv, read-only\n");
    scripted(
      repo,
      flow().replace(/run: ".*"/, 'run: ".venv/bin/python -m unittest discover -s tests"'),
      '  - - edit: { path: src/calc/__init__.py, search: "a - b", replace: "a + b" }\n',
    );
    const run = await neo(['flow', 'run', FLOW]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('is not lent');
    expect(run.stdout).toContain('gate `.venv/bin/python -m unittest discover -s tests` passed (attempt 1/3)');
  });

  it('a Python module with no virtualenv (benjaminp/six): init says the gate uses the system python3, and it passes', async () => {
    const { repo, neo, flow } = await project({
      'setup.py': 'from setuptools import setup\nsetup(name="six", py_modules=["six"])\n',
      'tox.ini': '[testenv]\ncommands = python -m unittest {posargs}\n',
      'six.py': 'def b(s):\n    return s.encode("utf-8")\n',
      'test_six.py':
        'import unittest\nimport six\n\n\nclass T(unittest.TestCase):\n    def test_b(self):\n        self.assertEqual(six.b("\\xe9"), b"\\xe9")\n',
    });
    const init = await neo(['init']);
    expect(init.stdout).toContain(
      "warning: no virtualenv in your checkout to lend a run's worktree: the gate runs this machine's `python3`; if the tests need the project installed or packages it lacks, install them first (`python3 -m venv .venv && .venv/bin/pip install -e .`)\n",
    );
    scripted(repo, flow(), `  - - edit: { path: six.py, search: 'encode("utf-8")', replace: 'encode("latin-1")' }\n`);
    const run = await neo(['flow', 'run', FLOW]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('gate `python3 -m unittest` passed (attempt 1/3)');
  });

  it('a src layout with no virtualenv (pytest-dev/iniconfig): the gate imports the package from src/, not an installed copy', async () => {
    // iniconfig's tests imported the iniconfig pytest itself depends on, from site-packages: the
    // gate judged another copy than the agent's, and could not pass.
    const { repo, neo, flow } = await project({
      'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a - b\n',
      'tests/__init__.py': '',
      'tests/testcalc.py':
        'import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n',
    });
    const init = await neo(['init']);
    expect(init.stdout).toContain(
      'project: python (pip); gate: `PYTHONPATH=src python3 -m unittest` (no pytest named: the standard unittest runner; src layout without a virtualenv: the package is imported from src/)',
    );
    scripted(repo, flow(), `  - - edit: { path: src/calc/__init__.py, search: 'a - b', replace: 'a + b' }\n`);
    const run = await neo(['flow', 'run', FLOW]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('gate `PYTHONPATH=src python3 -m unittest` passed (attempt 1/3)');
  });
});
