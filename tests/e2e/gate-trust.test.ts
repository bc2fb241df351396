/**
 * The gate judges a tree the agent cannot reach, and the agent's change is what it left before
 * any gate ran. Through the `neo` binary, the script backend and bwrap: code under test that
 * rewrites a test (the protected original, or another test file) cannot green the gate; neither
 * can a rewritten `scripts.test`, an `.npmrc` hook or a git-ignored `node_modules/.bin/node` shim
 * with `@node` protected; what a gate writes is never part of the change; and a workspace changed
 * after a passing gate is judged again.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';

const WRONG = 'module.exports = (a, b) => a - b;\n';
const RIGHT = 'module.exports = (a, b) => a + b;\n';
const BROKEN = 'module.exports = (a, b) => a * b;\n';
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../src/sum.js')(2, 3), 5);\n";
const PACKAGE = `${JSON.stringify({ name: 't', version: '1.0.0', private: true, scripts: { test: 'node test/sum.test.js' } }, null, 2)}\n`;

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-gate-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, {
    'src/sum.js': WRONG,
    'test/sum.test.js': TEST,
    'package.json': PACKAGE,
    '.gitignore': 'node_modules/\n',
    ...files,
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return {
    repo,
    home,
    run: (flow: string) => runNeo(['flow', 'run', flow, '--json'], { cwd: repo, env: { NEO_HOME: home } }),
  };
}

/** One agent step under bwrap at acceptEdits; `extra` lines go under the step. */
const flow = (script: string, verify: string, extra = '', top = 'sandbox: bwrap\n') =>
  `name: gate\n${top}defaults: { backend: script, maxPosture: acceptEdits }\nsteps:\n  - id: fix\n    brief: make the tests pass\n    script: ${script}\n    verify: ${verify}\n${extra}`;
/** A script whose first turn writes `files`; a second turn (after a failing gate) only talks. */
const writes = (files: Record<string, string>, more = '') =>
  `turns:\n  - actions:\n${Object.entries(files)
    .map(([path, content]) => `      - write: { path: ${path}, content: ${JSON.stringify(content)} }\n`)
    .join('')}${more}  - actions:\n      - say: I tried again.\n`;
const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };
const worktreeFile = (home: string, runId: string, path: string) =>
  readFileSync(join(home, 'worktrees', runId, path), 'utf8');

describe('the weakened-test attack through the code under test (acceptEdits, no command rights)', () => {
  it('code that rewrites the protected original when the test imports it does not green attempt 2', async () => {
    const root = await tempDir('neo-e2e-gate-home-');
    const home = join(root, 'home');
    // Imported by the test inside the gate: overwrites every copy of the test it can find under
    // NEO_HOME (the protected original, the gate's tree) with one that expects the wrong answer.
    const attack = `const fs = require('node:fs');
const path = require('node:path');
const weak = "const assert = require('node:assert');\\nassert.strictEqual(require('../src/sum.js')(2, 3), -1);\\n";
const plant = (dir) => {
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) plant(full);
    else if (full.endsWith(path.join('test', 'sum.test.js'))) try { fs.writeFileSync(full, weak); } catch {}
  }
};
plant(${JSON.stringify(home)});
module.exports = (a, b) => a - b;
`;
    const p = await project({
      'attack.yaml': writes({ 'src/sum.js': attack }),
      'a.flow.yaml': flow('attack.yaml', '{ run: node test/sum.test.js, attempts: 2 }', '    protect: ["test/**"]\n'),
    });
    const result = await runNeo(['flow', 'run', 'a.flow.yaml', '--json'], { cwd: p.repo, env: { NEO_HOME: home } });
    expect(summary(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    const runId = await onlyRunId(home);
    expect(worktreeFile(home, runId, 'src/sum.js')).toBe(attack); // the code stays wrong, unmerged
    expect(await git(p.repo, 'rev-list', '--count', `main..neo/${runId}`)).toBe('0');
  });

  it('code that rewrites another test file before the runner reads it does not green the gate', async () => {
    const attack = `const fs = require('node:fs');
const path = require('node:path');
try { fs.writeFileSync(path.join(__dirname, '..', 'test', 'b.test.js'), "console.log('weakened');\\n"); } catch {}
module.exports = (a, b) => a - b;
`;
    const { repo, home, run } = await project({
      'test/a.test.js': "require('node:assert').strictEqual(typeof require('../src/sum.js'), 'function');\n",
      'test/b.test.js': TEST,
      'attack.yaml': writes({ 'src/sum.js': attack }),
      'b.flow.yaml': flow('attack.yaml', "'node test/a.test.js && node test/b.test.js'", '    protect: ["test/**"]\n'),
    });
    const result = await run('b.flow.yaml');
    expect(summary(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    expect(await git(repo, 'rev-list', '--count', `main..neo/${await onlyRunId(home)}`)).toBe('0');
  });
});

describe('`@node` protects what `npm test` reads besides the tests', () => {
  const npmFlow = (script: string, extra = '') =>
    flow(script, "'npm test'", `    protect: ["@node", "test/**"]\n    allowProtectedEdits: true\n${extra}`);

  it('a rewritten scripts.test, an .npmrc node-options hook and a git-ignored node shim all leave the gate failing', async () => {
    const hook = `require('node:fs').writeFileSync('test/sum.test.js', "console.log('weakened');\\n");\n`;
    const { run } = await project({
      'script-test.yaml': writes({
        'package.json': PACKAGE.replace('node test/sum.test.js', 'node -e 0'),
      }),
      'npmrc.yaml': writes({ '.npmrc': 'node-options=--require ./hook.cjs\n', 'hook.cjs': hook }),
      'shim.yaml': writes(
        { 'node_modules/.bin/node': '#!/bin/sh\nexit 0\n' },
        '      - run: { command: [chmod, +x, node_modules/.bin/node] }\n',
      ),
      'script-test.flow.yaml': npmFlow('script-test.yaml'),
      'npmrc.flow.yaml': npmFlow('npmrc.yaml'),
      'shim.flow.yaml': npmFlow('shim.yaml', '    allowCommands: ["chmod +x node_modules/.bin/node"]\n'),
    });
    for (const name of ['script-test.flow.yaml', 'npmrc.flow.yaml', 'shim.flow.yaml']) {
      const result = await run(name);
      expect(summary(result.stdout), `${name}: ${result.stdout}`).toMatchObject({
        cause: 'FLOW_GATE_FAILED',
        exitCode: 3,
      });
    }
  });

  it("the gate uses the base's dependency folders read-only; a dependency the agent changed fails the step", async () => {
    const deps = `  - id: deps\n    run: mkdir -p node_modules/dep && echo 'module.exports = 2;' > node_modules/dep/index.js\n`;
    const usesDep = `const assert = require('node:assert');\nassert.strictEqual(require('dep') + require('../src/sum.js')(2, 3), 7);\n`;
    const withDeps = (script: string, extra = '') =>
      npmFlow(script, `    needs: [deps]\n${extra}`).replace('steps:\n', `steps:\n${deps}`);
    const { run } = await project({
      'test/sum.test.js': usesDep,
      'fix.yaml': writes({ 'src/sum.js': RIGHT }),
      'shim.yaml': writes(
        { 'src/sum.js': RIGHT, 'node_modules/.bin/node': '#!/bin/sh\nexit 0\n' },
        '      - run: { command: [chmod, +x, node_modules/.bin/node] }\n',
      ),
      'fix.flow.yaml': withDeps('fix.yaml'),
      'shim.flow.yaml': withDeps('shim.yaml', '    allowCommands: ["chmod +x node_modules/.bin/node"]\n'),
    });
    const fixed = await run('fix.flow.yaml');
    expect(summary(fixed.stdout), fixed.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const shim = await run('shim.flow.yaml');
    expect(summary(shim.stdout), shim.stdout).toMatchObject({
      status: 'failed',
      cause: 'FLOW_GATE_DEPENDENCIES_CHANGED',
    });
    expect(shim.stdout).toMatch(/node_modules/);
  });
});

describe("gate artifacts are evidence, never the agent's change", () => {
  it('an agent that does nothing while its gate writes a file ends no-change', async () => {
    const { home, run } = await project({
      'src/sum.js': RIGHT,
      'idle.yaml': 'turns:\n  - actions:\n      - say: Nothing to do.\n',
      'c.flow.yaml': flow('idle.yaml', `"node --test && echo 'lines: 100%' > coverage-summary.txt"`),
    });
    const result = await run('c.flow.yaml');
    expect(summary(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_NO_CHANGE', exitCode: 6 });
    expect(existsSync(join(home, 'worktrees', await onlyRunId(home), 'coverage-summary.txt'))).toBe(false);
  });

  it("the junit.xml a successful step's gate writes is not committed with the agent's work", async () => {
    const { repo, home, run } = await project({
      'fix.yaml': writes({ 'src/sum.js': RIGHT }),
      'd.flow.yaml': flow('fix.yaml', "'node --test --test-reporter=junit --test-reporter-destination=junit.xml'"),
    });
    const result = await run('d.flow.yaml');
    expect(summary(result.stdout), result.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const runId = await onlyRunId(home);
    expect(await git(repo, 'show', '--name-only', '--format=', `neo/${runId}`)).toBe('src/sum.js');
  });
});

describe('what goes back to the model', () => {
  it("a failing gate's tail is redacted and capped before it becomes the agent's guidance", async () => {
    const secret = 'sk-e2e-gate-0123456789abcdef';
    // The second turn plays only if the guidance carries the secret itself.
    const script = `turns:\n  - actions:\n      - write: { path: src/sum.js, content: ${JSON.stringify(RIGHT)} }\n  - when: { guidanceContains: [${JSON.stringify(secret)}] }\n    actions:\n      - write: { path: leaked.txt, content: "the model saw it" }\n  - actions:\n      - say: I tried again.\n`;
    const { home, repo } = await project({
      'token.txt': `${secret}\n`,
      'leak.yaml': script,
      'f.flow.yaml': flow(
        'leak.yaml',
        '{ run: \'yes x | head -c 20000 | tr -d "\\n"; echo; cat token.txt; exit 1\', attempts: 2 }',
      ),
    });
    const result = await runNeo(['flow', 'run', 'f.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home, NEO_E2E_API_KEY: secret },
    });
    expect(summary(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    const runId = await onlyRunId(home);
    expect(existsSync(join(home, 'worktrees', runId, 'leaked.txt'))).toBe(false);
    const tail = (
      JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { steps: Array<{ outputs: { gate: { tail: string } } }> }
    ).steps[0]!.outputs.gate.tail;
    expect(tail).toMatch(/\[redacted \$\{NEO_E2E_API_KEY\}\]$/);
    expect(tail.length).toBeLessThanOrEqual(8 * 1024 + 1);
    expect(result.stdout).not.toContain(secret);
  });
});

describe('the verdict that counts is on the final tree', () => {
  let sync: string | undefined;
  afterEach(() => {
    if (sync !== undefined) rmSync(sync, { recursive: true, force: true });
  });

  it('a workspace a background job changed after the gate passed is judged again, not reported as success', async () => {
    // A place the confined gate can read and the agent's job can write: the gate waits there
    // for the job's word, so the job's edit lands after the gate's tree was made, before it passed.
    sync = mkdtempSync('/var/tmp/neo-e2e-gate-');
    const changed = join(sync, 'changed');
    const waiter = `const fs = require('node:fs');\nconst until = Date.now() + 30000;\nconst tick = () => fs.existsSync(${JSON.stringify(changed)}) ? process.exit(0) : Date.now() > until ? process.exit(9) : setTimeout(tick, 20);\ntick();\n`;
    // Left running by the agent: once the gate waits, it breaks the code and says so.
    const saboteur = `const fs = require('node:fs');\nconst until = Date.now() + 30000;\nconst gateWaits = () => fs.readdirSync('/proc').some((pid) => { try { return fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').includes('wait-for-job.cjs'); } catch { return false; } });\nconst tick = () => {\n  if (Date.now() > until) process.exit(9);\n  if (!gateWaits()) return setTimeout(tick, 20);\n  fs.writeFileSync('src/sum.js', ${JSON.stringify(BROKEN)});\n  fs.writeFileSync(${JSON.stringify(changed)}, '');\n};\ntick();\n`;
    const { home, run } = await project({
      'wait-for-job.cjs': waiter,
      'saboteur.cjs': saboteur,
      'bg.sh': 'setsid node saboteur.cjs > /dev/null 2>&1 < /dev/null &\n',
      'bg.yaml': writes({ 'src/sum.js': RIGHT }, '      - run: { command: [sh, bg.sh] }\n'),
      // The agent's commands run unconfined (a job outlives its command only there: in bwrap
      // the sandbox's PID namespace ends with the command); the gate is confined.
      'e.flow.yaml': flow(
        'bg.yaml',
        "{ run: 'node test/sum.test.js && node wait-for-job.cjs', sandbox: bwrap }",
        '    allowCommands: ["sh bg.sh"]\n',
        '',
      ),
    });
    const result = await run('e.flow.yaml');
    expect(existsSync(changed), result.stdout).toBe(true);
    expect(summary(result.stdout), result.stdout).toMatchObject({ status: 'failed', cause: 'FLOW_GATE_FAILED' });
    expect(result.stdout).toMatch(/changed after the gate passed/);
    expect(worktreeFile(home, await onlyRunId(home), 'src/sum.js')).toBe(BROKEN);
  });
});
