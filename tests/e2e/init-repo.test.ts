/**
 * `neo init` on a real repository, as a new user meets it: the flow it writes into `.neo/flows/`
 * works on the repository (not on `.neo/flows`), and a folder neo cannot run in is refused up
 * front with the exact commands that fix it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** A tiny library with one function broken on purpose, and its test (`npm test` = node --test). */
const LIBRARY = {
  'package.json': JSON.stringify({ name: 'tiny', type: 'module', scripts: { test: 'node --test' } }),
  'src/index.js': 'export const add = (a, b) => a - b;\n',
  'test/index.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/index.js';\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
};

const FIX = `turns:
  - - edit: { path: src/index.js, search: "a - b", replace: "a + b" }
    - say: Fixed add().
`;

async function folder(files: Record<string, string>, { commit = true, gitInit = true } = {}) {
  const root = await tempDir('neo-e2e-init-');
  const repo = join(root, 'lib');
  const home = join(root, 'neo-home');
  await writeTree(repo, files);
  if (gitInit) await git(repo, 'init', '-q', '-b', 'main');
  if (gitInit && commit) {
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  }
  const neo = (args: string[], cwd = repo) => runNeo(args, { cwd, env: { NEO_HOME: home } });
  return { repo, home, neo };
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    status: string;
    cause: string | null;
    exitCode: number;
    workspace: { path: string };
  };

describe('neo init on a real repository', () => {
  it("writes a flow whose agent edits the repository's own files, fixing the library in the run's worktree", async () => {
    const { repo, neo } = await folder(LIBRARY);
    const init = await neo(['init']);
    expect(init.stderr).toBe('');
    expect(init.exitCode).toBe(0);
    const flowFile = join(repo, '.neo', 'flows', 'check-and-fix.flow.yaml');
    // The scaffold as written, on the script backend (a scripted agent beside the flow).
    const flow = readFileSync(flowFile, 'utf8');
    expect(flow).toMatch(/^sandbox: bwrap$/m);
    writeFileSync(
      flowFile,
      flow
        .replace('backend: claude-code', 'backend: script')
        .replace('    verify:', '    script: fix.yaml\n    verify:'),
    );
    writeFileSync(join(repo, '.neo', 'flows', 'fix.yaml'), FIX);
    // `.neo/` is not committed yet: the run still works on the repository, which is.
    const run = await neo(['flow', 'run', '.neo/flows/check-and-fix.flow.yaml', '--json']);
    expect(summary(run.stdout), run.stdout + run.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const workspace = summary(run.stdout).workspace.path;
    expect(readFileSync(join(workspace, 'src', 'index.js'), 'utf8')).toContain('a + b');
    expect(existsSync(join(workspace, 'package.json'))).toBe(true);
    // The checkout is untouched.
    expect(readFileSync(join(repo, 'src', 'index.js'), 'utf8')).toContain('a - b');
    const dry = await neo(['flow', 'run', '.neo/flows/check-and-fix.flow.yaml', '--dry-run']);
    expect(dry.exitCode).toBe(0);
  });

  it('refuses a folder that is not a git repository, saying what to run, and writes nothing', async () => {
    const { repo, neo } = await folder(LIBRARY, { gitInit: false });
    const init = await neo(['init']);
    expect(init.exitCode).toBe(2);
    expect(init.stderr).toContain('error[CLI_INIT_NOT_GIT]');
    expect(init.stderr).toContain('git init && git add -A && git commit -m "initial commit"');
    expect(existsSync(join(repo, '.neo'))).toBe(false);
  });

  it('refuses a repository without a commit, saying what to run, and writes nothing', async () => {
    const { repo, neo } = await folder(LIBRARY, { commit: false });
    const init = await neo(['init']);
    expect(init.exitCode).toBe(2);
    expect(init.stderr).toContain('error[CLI_INIT_NO_COMMIT]');
    expect(init.stderr).toContain('git add -A && git commit -m "initial commit"');
    expect(readdirSync(repo).sort()).toEqual(['.git', 'package.json', 'src', 'test']);
  });

  it('a run whose project folder is not committed refuses with exit 2 before anything ran, leaving no worktree', async () => {
    const { repo, home, neo } = await folder(LIBRARY);
    await writeTree(repo, { 'new/plan.yaml': 'name: fresh\nsteps:\n  - { id: a, run: "true" }\n' });
    const run = await neo(['flow', 'run', 'new/plan.yaml']);
    expect(run.stderr).toContain('FLOW_WORKSPACE_UNCOMMITTED');
    expect(run.exitCode).toBe(2);
    expect(await git(repo, 'branch', '--list', 'neo/*')).toBe('');
    expect(existsSync(join(home, 'worktrees')) ? readdirSync(join(home, 'worktrees')) : []).toEqual([]);
  });
});
