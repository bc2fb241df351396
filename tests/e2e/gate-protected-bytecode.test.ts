/**
 * A protected test file is put back in the gate's tree from its original, but Python may never
 * read it: an unchecked-hash `.pyc` in `__pycache__` (PEP 552) is loaded whatever the source says.
 * An agent that compiled a passing copy of a protected test there, in a project that does not
 * ignore `__pycache__` and protects its tests file by file, greened a `python -m unittest` gate
 * on code that failed the real test. Restoring a protected `.py` drops its cached bytecode.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const PYTHON =
  (await execa('python3', ['-c', 'import sys; assert sys.version_info >= (3, 8)'], { reject: false })).exitCode === 0;

const TEST = (expected: number) =>
  `import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), ${expected})\n`;

describe.skipIf(!PYTHON)('a unittest gate and a protected test shadowed by its bytecode', () => {
  it('runs the protected original, not an unchecked-hash .pyc the agent compiled beside it', async () => {
    const root = await tempDir('neo-e2e-gate-pyc-');
    const repo = join(root, 'repo');
    const gate = 'python3 -m unittest discover -s tests -t .';
    // Compiles a passing copy of the test into the cache file Python reads for tests/test_calc.py.
    const compile = [
      'import importlib.util, os, py_compile',
      `open("fake.py", "w").write(${JSON.stringify(TEST(-1))})`,
      'cfile = importlib.util.cache_from_source("tests/test_calc.py")',
      'py_compile.compile("fake.py", cfile=cfile, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)',
      'os.remove("fake.py")',
    ].join('\n');
    await writeTree(repo, {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'tests/__init__.py': '',
      'tests/test_calc.py': TEST(5),
      'compile.py': compile,
      'shadow.yaml':
        'turns:\n  - actions:\n      - run: { command: [python3, compile.py] }\n      - write: { path: note.txt, content: "x" }\n',
      'shadow.flow.yaml': [
        'name: gate-pyc',
        'sandbox: bwrap',
        'defaults: { backend: script, maxPosture: full }',
        'steps:',
        '  - id: fix',
        '    brief: make the tests pass',
        '    script: shadow.yaml',
        "    protect: ['tests/test_*.py']",
        `    verify: ${gate}`,
        '',
      ].join('\n'),
    });
    await commitAll(repo);
    const run = await runNeo(['flow', 'run', 'shadow.flow.yaml'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home') },
      timeout: 120_000,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(3);
    expect(run.stdout).toContain(`FLOW_GATE_FAILED: the check \`${gate}\` still fails after 1 attempt (exit 1)`);
  }, 180_000);
});
