/**
 * `neo init <dir>` scaffolds where it is asked: a package of a monorepo gets its own `.neo/`,
 * detected from its own manifest, and the flow it writes works on that package (in a worktree of
 * the whole repository). Without a folder, init scaffolds at the repository's root and says so
 * when that is not where it was run. A folder that does not exist is refused, writing nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** A monorepo: a root without a manifest, and one Node package whose add() is broken on purpose. */
const MONOREPO = {
  'README.md': '# mono\n',
  'packages/x/package.json': JSON.stringify({ name: 'x', type: 'module', scripts: { test: 'node --test' } }),
  'packages/x/src/index.js': 'export const add = (a, b) => a - b;\n',
  'packages/x/test/index.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/index.js';\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
};

async function monorepo() {
  const root = await tempDir('neo-e2e-init-sub-');
  const repo = join(root, 'mono');
  const home = join(root, 'neo-home');
  await writeTree(repo, MONOREPO);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[], cwd = repo) => runNeo(args, { cwd, env: { NEO_HOME: home } });
  return { repo, neo };
}

describe('neo init with a folder inside a repository', () => {
  it('scaffolds in that folder, from its manifest, and the flow works on that package', async () => {
    const { repo, neo } = await monorepo();
    const init = await neo(['init', 'packages/x']);
    expect(init.stderr).toBe('');
    expect(init.exitCode).toBe(0);
    const lines = init.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'created packages/x/.neo/personas/project-helper.md',
      'created packages/x/.neo/flows/check-and-fix.flow.yaml',
    ]);
    expect(init.stdout).toContain('project: node (npm); gate: `npm test` (package.json scripts.test: node --test)');
    expect(init.stdout).toContain(
      'next: `neo validate packages/x`, then `neo flow run packages/x/.neo/flows/check-and-fix.flow.yaml`',
    );
    expect(init.stdout).toContain(
      `its steps work on ${join(repo, 'packages', 'x')} in a git worktree of your last commit`,
    );
    expect(existsSync(join(repo, '.neo'))).toBe(false);
    const validate = await neo(['validate', 'packages/x']);
    expect(validate.exitCode).toBe(0);
    expect(validate.stdout).toMatch(/^✓ \d+ definitions valid/);

    const flowFile = join(repo, 'packages', 'x', '.neo', 'flows', 'check-and-fix.flow.yaml');
    writeFileSync(
      flowFile,
      readFileSync(flowFile, 'utf8')
        .replace('backend: claude-code', 'backend: script')
        .replace('    verify:', '    script: fix.yaml\n    verify:'),
    );
    writeFileSync(
      join(repo, 'packages', 'x', '.neo', 'flows', 'fix.yaml'),
      'turns:\n  - - edit: { path: src/index.js, search: "a - b", replace: "a + b" }\n    - say: Fixed add().\n',
    );
    const run = await neo(['flow', 'run', 'packages/x/.neo/flows/check-and-fix.flow.yaml', '--json']);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      status: string;
      workspace: { path: string };
    };
    expect(summary.status, run.stdout + run.stderr).toBe('succeeded');
    expect(summary.workspace.path.endsWith(join('packages', 'x'))).toBe(true);
    expect(readFileSync(join(summary.workspace.path, 'src', 'index.js'), 'utf8')).toContain('a + b');
    // The package's own `.neo/`, uncommitted, is not an uncommitted change of the project.
    expect(run.stdout).not.toContain('uncommitted changes');
    const show = await neo(['flow', 'show']);
    expect(show.stdout.split('\n')[2]).toMatch(/ · 1 turn · \d+ tokens · 1 process$/);
  });

  it('without a folder, run in a package, scaffolds at the root and says so', async () => {
    const { repo, neo } = await monorepo();
    const init = await neo(['init'], join(repo, 'packages', 'x'));
    expect(init.exitCode).toBe(0);
    expect(init.stdout.split('\n')[0]).toBe('created ../../.neo/personas/project-helper.md');
    expect(init.stdout).toContain(
      `note: scaffolded at the root of the repository (${repo}), which every flow there works on; \`neo init .\` scaffolds for this folder alone`,
    );
  });

  it('refuses a folder that does not exist, writing nothing', async () => {
    const { repo, neo } = await monorepo();
    const init = await neo(['init', 'packages/nope']);
    expect(init.exitCode).toBe(2);
    expect(init.stderr).toContain('error[CLI_INIT_NO_DIR]: packages/nope is not a folder');
    expect(existsSync(join(repo, '.neo'))).toBe(false);
    expect(existsSync(join(repo, 'packages', 'nope'))).toBe(false);
  });
});
