import { describe, expect, it } from 'vitest';
import { gateRunnerParts, resolveScripts } from '../../../engine/flow/core/gate-runner.js';
import { judgeReport, reportedCounts } from '../../../engine/flow/core/runner-report.js';

describe('gateRunnerParts: the runners a gate command runs', () => {
  it.each([
    ['.venv/bin/python -m pytest -q', [{ kind: 'pytest' }]],
    ['python3.12 -X dev -m pytest tests', [{ kind: 'pytest' }]],
    ['pytest -q', [{ kind: 'pytest' }]],
    ['uv run pytest', [{ kind: 'pytest' }]],
    ['.venv/bin/python -m unittest', [{ kind: 'unittest' }]],
    ["python -m unittest discover -p '*_test.py'", [{ kind: 'unittest' }]],
    ['python -m unittest test_calc', [{ kind: 'unittest' }]],
    ['node --test', [{ kind: 'node-test' }]],
    ['npx vitest run', [{ kind: 'vitest' }]],
    ['CI=1 jest --ci', [{ kind: 'jest' }]],
    ['cargo test --offline', [{ kind: 'cargo-test' }]],
    ['cargo +nightly test', [{ kind: 'cargo-test' }]],
    ['go test -v ./...', [{ kind: 'go-test' }]],
    [
      'npm run build && npm test',
      [
        { script: 'build', args: [] },
        { script: 'test', args: [] },
      ],
    ],
    ['npm test -- --bail', [{ script: 'test', args: ['--bail'] }]],
    ['npm test -- -w 1', [{ script: 'test', args: ['-w', '1'] }]],
    ['cd packages/a && pytest -q', [{ kind: 'pytest' }]],
    ['pnpm test', [{ script: 'test', args: [], orBin: true }]],
    ['pytest 2>&1', [{ kind: 'pytest' }]],
    // Told to print no summary: judged by its exit code, still without the cwd first.
    ['python -m pytest -qq', [{ kind: 'pytest', silent: true }]],
    ['pytest -q --quiet -p no:cacheprovider', [{ kind: 'pytest', silent: true }]],
    ['pytest -p no:terminal', [{ kind: 'pytest', silent: true }]],
  ])('%s', (command, parts) => {
    expect(gateRunnerParts(command)).toEqual(parts);
  });

  it.each([
    'pytest || true',
    'pytest; echo done',
    'pytest | tee log',
    'pytest > log.txt',
    'node --test --test-reporter=dot',
    'vitest run --reporter=json',
    'jest --json',
    'go test ./...',
    'go test -json ./...',
    'make test',
    'bun test',
    'python -m mypkg.tests',
    'sh -c "pytest -q"',
  ])('%s: no runner (exit-code semantics)', (command) => {
    expect(gateRunnerParts(command).filter((part) => 'kind' in part)).toEqual([]);
  });

  // Another folder's script: the gate's package.json does not say what it runs, and judging its
  // output by the root's `vitest` failed a passing `node --test` there.
  it.each([
    'cd packages/a && npm test',
    'npm test --prefix packages/a',
    'npm test -w packages/a',
    'npm test --workspaces',
  ])("%s: not resolved from the gate folder's scripts", (command) => {
    expect(resolveScripts(gateRunnerParts(command), { test: 'vitest run' })).toEqual([]);
  });

  it("resolves a package script from the manifest's scripts, one level", () => {
    const scripts = { test: 'vitest run', build: 'tsc', nested: 'npm test' };
    expect(resolveScripts(gateRunnerParts('npm run build && npm test'), scripts)).toEqual([{ kind: 'vitest' }]);
    expect(resolveScripts(gateRunnerParts('npm run nested'), scripts)).toEqual([]);
    expect(resolveScripts(gateRunnerParts('npm test'), {})).toEqual([]);
    expect(resolveScripts(gateRunnerParts('pnpm vitest run'), {})).toEqual([{ kind: 'vitest' }]);
    expect(resolveScripts(gateRunnerParts('npm test'), { test: 'echo ok' })).toEqual([]);
  });
});

const CARGO_HEAD = '     Running unittests src/lib.rs (target/debug/deps/c-d4fd4905425e6bfe)\n\nrunning 2 tests\n';
const CARGO_OK = 'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n';
const CARGO_DOC =
  '   Doc-tests c\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n';

describe("judgeReport: a gate that exited 0 passes on its runner's summary", () => {
  it.each([
    ['pytest', '....\n4 passed in 0.12s\n', 4],
    ['pytest', '==== 3 passed, 1 skipped, 2 warnings in 0.50s ====\n', 3],
    ['pytest', '.xX\n1 passed, 1 xfailed, 1 xpassed in 0.10s\n', 2],
    ['unittest', '...\n----\nRan 3 tests in 0.001s\n\nOK (skipped=1)\n', 2],
    ['unittest', '...\n----\nRan 4 tests in 0.001s\n\nOK (skipped=1, expected failures=2)\n', 1],
    ['node-test', '# tests 3\n# suites 0\n# pass 3\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 0\n', 3],
    ['node-test', 'ℹ tests 2\nℹ pass 2\nℹ fail 0\n', 2],
    ['vitest', ' Test Files  1 passed (1)\n\u001b[2m      Tests \u001b[22m 5 passed (5)\n', 5],
    ['jest', 'Tests:       2 passed, 2 total\n', 2],
    ['cargo-test', CARGO_HEAD + CARGO_OK + CARGO_DOC.replace('0 passed', '1 passed'), 3],
  ] as const)('%s: %j', (kind, output, ran) => {
    expect(judgeReport([kind], output)).toEqual({ ok: true, counts: { ran, failed: 0 } });
  });

  it('names the runner and what was missing when its summary is absent', () => {
    expect(judgeReport(['pytest'], 'collecting ...\n')).toEqual({
      ok: false,
      unreported: "exit 0 without pytest's summary: no line like `3 passed in 0.12s`; the tests may never have run",
    });
    // A test binary that ended early (`process::exit(0)`) leaves its `test result:` line out.
    expect(judgeReport(['cargo-test'], CARGO_HEAD + CARGO_DOC)).toEqual({
      ok: false,
      unreported:
        "exit 0 without cargo test's summary: no `test result:` line for each test binary it ran; the tests may never have run",
    });
  });

  it('go test -v: a package whose `ok` has no `PASS` of its binary before it never ran its tests', () => {
    const honest =
      '=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n    --- PASS: TestAdd/sub (0.00s)\nPASS\nok  \tcalc\t0.002s\n?   \tcalc/sub\t[no test files]\n';
    expect(judgeReport(['go-test'], honest)).toEqual({ ok: true, counts: { ran: 2, failed: 0 } });
    expect(judgeReport(['go-test'], 'ok  \tcalc\t0.002s\n?   \tcalc/sub\t[no test files]\n')).toEqual({
      ok: false,
      unreported:
        "exit 0 without go test -v's summary: no `PASS` line before each package's `ok`; the tests may never have run",
    });
  });

  it('refuses a summary with failures or no test, and one below the base’s count', () => {
    expect(judgeReport(['jest'], 'Tests:       1 failed, 2 passed, 3 total\n')).toEqual({
      ok: false,
      unreported: "exit 0, but jest's summary counts 1 failed",
    });
    expect(judgeReport(['pytest'], 'no tests ran in 0.01s\n')).toEqual({
      ok: false,
      unreported: "exit 0, but pytest's summary shows no test ran",
    });
    expect(judgeReport(['node-test'], '# tests 1\n# pass 1\n# fail 0\n', 2)).toEqual({
      ok: false,
      unreported: "exit 0, but node --test's summary counts 1 test, fewer than the 2 the step's base ran",
    });
  });

  it('refuses a run pytest.exit() ended early, whatever it counted before', () => {
    const exited = '.\n1 passed in 0.88s\n!!!!!!!!!! _pytest.outcomes.Exit: bye !!!!!!!!!!\n';
    expect(judgeReport(['pytest'], exited)).toEqual({
      ok: false,
      unreported: 'exit 0, but pytest stopped early: `Exit: bye`; the tests after it never ran',
    });
    // Only after the summary: a banner a test printed before it is the test's output.
    expect(judgeReport(['pytest'], '!! Exit: x !!\n1 passed in 0.1s\n')).toMatchObject({ ok: true });
  });

  it("reads a failing base's counts as the floor", () => {
    expect(reportedCounts(['pytest'], '1 failed, 2 passed in 0.1s\n')).toEqual({ ran: 3, failed: 1 });
    expect(reportedCounts(['pytest'], 'Traceback …\n')).toBeUndefined();
  });
});
