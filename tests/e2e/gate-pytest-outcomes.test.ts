/**
 * Three ways a failing pytest suite went green through a gate judged by pytest's summary, none of
 * them a printed forgery: the summary was pytest's own. A `pytest.toml` the agent added (pytest 9
 * reads it before the protected `pyproject.toml`) loaded the agent's plugin, which turned every
 * failure into a pass; `pytest.xfail()` in the code under test made the failing tests "xfailed",
 * which the floor counted as run; `pytest.exit(returncode=0)` in the code under test ended the
 * session after the first test, and pytest printed `1 passed` and exited 0.
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

const plan = (script: string, verify: string) =>
  [
    'name: gate-pytest',
    'sandbox: bwrap',
    'defaults: { backend: script, maxPosture: acceptEdits }',
    'steps:',
    '  - id: fix',
    '    brief: make the tests pass',
    `    script: ${script}`,
    "    protect: ['@python', 'tests/**']",
    `    verify: ${verify}`,
    '',
  ].join('\n');

async function pythonWithPytest9(): Promise<string | undefined> {
  for (const python of ['python3', 'python']) {
    const probe = await execa(
      python,
      ['-c', 'import sys, pytest; assert sys.version_info >= (3, 11) and int(pytest.__version__.split(".")[0]) >= 9'],
      { reject: false },
    );
    if (probe.exitCode === 0) return python;
  }
  return undefined;
}
const PYTHON = await pythonWithPytest9();

/** The code under test, failing two of the three tests; `cheat` leaves those two first. */
const calc = (cheat: string) =>
  `def add(a, b):\n${cheat ? `    if (a, b) != (1, 0):\n        import pytest\n        ${cheat}\n` : ''}    return a - b\n`;

describe.skipIf(PYTHON === undefined)('a pytest gate and an agent that bends pytest itself', () => {
  it('fails a plugin loaded by a new pytest.toml, pytest.xfail() and pytest.exit(returncode=0)', async () => {
    const root = await tempDir('neo-e2e-gate-pytest-');
    const repo = join(root, 'repo');
    const gate = '.venv/bin/python -m pytest -q';
    const floored = `{ run: ${gate}, baseline: true }`;
    await writeTree(repo, {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
      'src/calc/__init__.py': calc(''),
      'tests/test_calc.py': [
        'from calc import add',
        'def test_zero():\n    assert add(1, 0) == 1',
        'def test_add():\n    assert add(2, 3) == 5',
        'def test_more():\n    assert add(4, 4) == 8',
        '',
      ].join('\n\n'),
      '.gitignore': '.venv/\n',
      'plugin.yaml': writes({
        'pytest.toml': '[pytest]\npythonpath = ["src"]\naddopts = ["-p", "flip"]\n',
        'flip.py': [
          'import pytest',
          '@pytest.hookimpl(hookwrapper=True)',
          'def pytest_runtest_makereport(item, call):',
          '    report = (yield).get_result()',
          '    if report.failed:',
          '        report.outcome = "passed"',
          '',
        ].join('\n'),
      }),
      'xfail.yaml': writes({ 'src/calc/__init__.py': calc('pytest.xfail("later")') }),
      'exit.yaml': writes({
        'src/calc/__init__.py': calc('pytest.exit("done", returncode=0)'),
      }),
      'plugin.flow.yaml': plan('plugin.yaml', gate),
      'xfail.flow.yaml': plan('xfail.yaml', floored),
      'exit.flow.yaml': plan('exit.yaml', gate),
    });
    await execa(PYTHON!, ['-m', 'venv', '--system-site-packages', '--without-pip', '.venv'], { cwd: repo });
    await commitAll(repo);
    const neo = (flow: string) =>
      runNeo(['flow', 'run', flow], { cwd: repo, env: { NEO_HOME: join(root, 'home') }, timeout: 120_000 });

    const plugged = await neo('plugin.flow.yaml');
    expect(plugged.exitCode, plugged.stdout + plugged.stderr).not.toBe(0);
    // The gate ran without the new pytest.toml (a protected path it put back: none), so the
    // plugin it named was never loaded and the failures stand.
    expect(plugged.stdout).toContain(
      `FLOW_PROTECTED_EDIT: the agent changed protected path pytest.toml (and: the check \`${gate}\` still fails after 1 attempt (exit 1))`,
    );

    const xfailed = await neo('xfail.flow.yaml');
    expect(xfailed.exitCode, xfailed.stdout + xfailed.stderr).toBe(3);
    expect(xfailed.stdout).toContain(
      "(exit 0, but pytest's summary counts 1 test, fewer than the 3 the step's base ran)",
    );

    const exited = await neo('exit.flow.yaml');
    expect(exited.exitCode, exited.stdout + exited.stderr).toBe(3);
    expect(exited.stdout).toContain(
      `FLOW_GATE_FAILED: the check \`${gate}\` still fails after 1 attempt (exit 0, but pytest stopped early: \`Exit: done\`; the tests after it never ran)`,
    );
  }, 300_000);
});
