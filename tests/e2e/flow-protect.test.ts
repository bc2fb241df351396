/**
 * A gate the agent cannot influence: `protect:` globs on a step. The weakened-test scenario on
 * the script backend — the agent edits the test so it passes and leaves the code wrong — fails
 * the step naming the protected path; without `protect:` the same run passes (the control).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const SUM = 'module.exports = (a, b) => a - b;\n';
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../sum.js')(2, 3), 5);\n";
const WEAKENED = "const assert = require('node:assert');\nassert.strictEqual(require('../sum.js')(2, 3), -1);\n";

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-protect-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, { 'sum.js': SUM, 'test/sum.test.js': TEST, ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return {
    repo,
    home,
    run: (flow: string, args = ['--json']) =>
      runNeo(['flow', 'run', flow, ...args], { cwd: repo, env: { NEO_HOME: home } }),
  };
}

const flow = (name: string, script: string, extra: string) =>
  `name: ${name}\ndefaults: { backend: script, maxPosture: acceptEdits }\nsteps:\n  - id: fix\n    brief: make the test pass\n    script: ${script}\n    verify: node test/sum.test.js\n${extra}`;
const script = (path: string, content: string) =>
  `turns:\n  - actions:\n      - write: { path: ${path}, content: ${JSON.stringify(content)} }\n`;
const last = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

describe('protect: the gate judges the originals', () => {
  it('a weakened test fails the step naming the protected path; unprotected, the same run passes', async () => {
    const { repo, run } = await project({
      'weaken.yaml': script('test/sum.test.js', WEAKENED),
      'fix.yaml': script('sum.js', 'module.exports = (a, b) => a + b;\n'),
      'protected.flow.yaml': flow('protected', 'weaken.yaml', '    protect: ["test/**"]\n'),
      'sandboxed.flow.yaml': flow('sandboxed', 'weaken.yaml', '    protect: ["test/**"]\n    sandbox: bwrap\n'),
      'open.flow.yaml': flow('open', 'weaken.yaml', ''),
      'allowed.flow.yaml': flow('allowed', 'weaken.yaml', '    protect: ["test/**"]\n    allowProtectedEdits: true\n'),
      'honest.flow.yaml': flow('honest', 'fix.yaml', '    protect: ["test/**"]\n    sandbox: bwrap\n'),
    });
    // The control: nothing protected, the weakened test passes and the run says success.
    const open = await run('open.flow.yaml');
    expect(last(open.stdout), open.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });

    for (const name of ['protected.flow.yaml', 'sandboxed.flow.yaml']) {
      const result = await run(name);
      expect(last(result.stdout), name).toMatchObject({ status: 'failed', cause: 'FLOW_PROTECTED_EDIT', exitCode: 1 });
      expect(result.stdout).toMatch(
        /the agent changed protected path test\/sum\.test\.js \(and: the check `node test\/sum\.test\.js` still fails/,
      );
    }
    // Allowed: reported, not a failure by itself — the gate still judged the original test.
    const allowed = await run('allowed.flow.yaml');
    expect(last(allowed.stdout)).toMatchObject({ cause: 'FLOW_GATE_FAILED', exitCode: 3 });
    expect(allowed.stdout).toMatch(/"protectedEdits":\["test\/sum\.test\.js"\]/);

    const honest = await run('honest.flow.yaml');
    expect(last(honest.stdout), honest.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(readFileSync(join(repo, 'test/sum.test.js'), 'utf8')).toBe(TEST);
  });
});

describe('protect presets', () => {
  it('--dry-run shows a preset by name (--json expanded); an unknown one is a located definition error with the nearest name', async () => {
    const { run } = await project({
      'good.flow.yaml': flow('good', 'fix.yaml', '    protect: ["@node", "test/**"]\n'),
      'bad.flow.yaml': flow('bad', 'fix.yaml', '    protect: ["@pyhton", "test/**"]\n'),
      'fix.yaml': script('sum.js', 'module.exports = (a, b) => a + b;\n'),
    });
    const dry = await run('good.flow.yaml', ['--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/ · protect @node, test\/\*\* · /);
    const json = await run('good.flow.yaml', ['--dry-run', '--json']);
    const protect = (JSON.parse(json.stdout) as { steps: Array<{ protect: string[] }> }).steps[0]!.protect;
    expect(protect.slice(0, 2)).toEqual(['**/package.json', '**/package-lock.json']);
    expect(protect.at(-1)).toBe('test/**');
    const bad = await run('bad.flow.yaml', []);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/bad\.flow\.yaml:8:15: error\[DEF_PROTECT_PRESET\]: `@pyhton` is not a protect preset/);
    expect(bad.stderr).toMatch(/did you mean `@python`\?/);
  });
});
