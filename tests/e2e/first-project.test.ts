/**
 * A real project on the first try, as a new user meets it: `npm pack` of this build installed
 * into a copy of a real public library (clsx, tests/fixtures/libraries/clsx) with one function
 * broken, then `npx neo init` and `npx neo flow run` of the flow it wrote — on the script
 * backend, in bwrap, with the library's own test command as the gate, offline. The worktree is
 * lent the checkout's node_modules; the checkout is untouched; the summary says where the work
 * is and how to merge or remove it.
 */
import { execa } from 'execa';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { watchFolder } from '../helpers/leaks.js';
import { installOffline, packNeo } from '../helpers/pack.js';
import { tempDir } from '../helpers/temp.js';

const CLSX = fileURLToPath(new URL('../fixtures/libraries/clsx', import.meta.url));
/** The break: an object's keys are all kept, whatever their values. */
const WORKS = 'if (mix[y]) {';
const BROKEN = 'if (y) {';

const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, reject: false });

describe('a real library, neo installed from its tarball', () => {
  it('npx neo init, then npx neo flow run fixes the broken function with `npm test` as the gate, in bwrap', async () => {
    const root = await tempDir('neo-e2e-first-');
    const lib = join(root, 'clsx');
    const home = join(root, 'neo-home');
    cpSync(CLSX, lib, { recursive: true });
    const source = join(lib, 'src', 'index.js');
    writeFileSync(source, readFileSync(source, 'utf8').replace(WORKS, BROKEN));
    writeFileSync(join(lib, '.gitignore'), 'node_modules/\n');
    await installOffline(lib, await packNeo(root));
    expect((await execa('npm', ['test'], { cwd: lib, reject: false })).exitCode).not.toBe(0);
    await git(lib, 'init', '-q', '-b', 'main');
    await git(lib, 'add', '-A');
    await git(lib, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'clsx, broken');

    watchFolder(home);
    const npx = (...args: string[]) =>
      execa('npx', ['--offline', 'neo', ...args], {
        cwd: lib,
        env: { NEO_HOME: home, NO_COLOR: '1' },
        reject: false,
      });
    const init = await npx('init');
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      'project: node (npm); gate: `npm test` (package.json scripts.test: node --test); protect: @node test/** **/*.test.*\n',
    );
    expect(init.stdout).toContain(
      "dependencies: each run's worktree is lent your checkout's node_modules, read-only\n",
    );
    const flowFile = join(lib, '.neo', 'flows', 'check-and-fix.flow.yaml');
    const flow = readFileSync(flowFile, 'utf8');
    expect(flow).toMatch(/^sandbox: bwrap$/m);
    expect(flow).toContain('      run: "npm test"\n');

    // The user's one edit: the scripted agent the script backend plays, beside the flow.
    writeFileSync(flowFile, flow.replace('    verify:', '    script: scripts/fix.yaml\n    verify:'));
    mkdirSync(join(lib, '.neo', 'flows', 'scripts'));
    writeFileSync(
      join(lib, '.neo', 'flows', 'scripts', 'fix.yaml'),
      `turns:\n  - - edit: { path: src/index.js, search: "${BROKEN}", replace: "${WORKS}" }\n    - say: Objects keep only the keys whose values are truthy.\n`,
    );
    const validate = await npx('validate');
    expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout + validate.stderr).not.toContain('warning');
    const run = await npx('flow', 'run', '.neo/flows/check-and-fix.flow.yaml', '--backend', 'script');
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('gate `npm test` passed (attempt 1/3)');
    // `.neo/` is read from the checkout: leaving it uncommitted leaves nothing out of the run.
    expect(run.stdout).not.toContain('uncommitted changes');
    // A scripted agent holds no tool list: nothing to warn of.
    expect(run.stdout).not.toContain('cannot enforce');
    const runId = /^run (\S+)/m.exec(run.stdout)![1]!;
    const workspace = join(home, 'worktrees', runId);
    expect(run.stdout).toContain(`  workspace: ${workspace}\n`);
    expect(run.stdout).toContain(`  merge it: git -C ${lib} merge neo/${runId}\n`);
    expect(run.stdout).toContain(`  remove it (its commits too): npx neo flow clean ${runId} --force`);
    expect(readFileSync(join(workspace, 'src', 'index.js'), 'utf8')).toContain(WORKS);

    // The checkout is untouched: its source still broken, nothing changed but the new .neo/.
    expect(readFileSync(source, 'utf8')).toContain(BROKEN);
    expect((await git(lib, 'status', '--porcelain')).stdout).toBe('?? .neo/');
    // The fix is one commit on the run's branch, ready to merge.
    expect((await git(lib, 'diff', '--stat', 'main', `neo/${runId}`)).stdout).toContain('src/index.js | 2 +-');
  }, 120_000);
});
