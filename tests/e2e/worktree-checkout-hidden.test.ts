/**
 * A worktree run's confined processes do not see the checkout it came from: its files git ignores
 * (a `.env`, credentials) are not in the workspace, and were readable at the checkout's own path
 * wherever it lay outside the home and /tmp (which the sandbox hides anyway) — a devcontainer's
 * `/workspaces/<project>`, a CI runner's folder. What the workspace needs of it stays shown: its
 * git metadata (git works in the worktree) and the dependency folders lent to it.
 */
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const outsideTmp: string[] = [];
afterAll(async () => {
  await Promise.all(outsideTmp.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('a worktree run in bwrap, its checkout outside the home and /tmp', () => {
  it("hides the checkout's ignored files; git and the lent node_modules still work", async () => {
    const checkout = await mkdtemp('/var/tmp/neo-e2e-checkout-');
    outsideTmp.push(checkout);
    await writeTree(checkout, {
      '.gitignore': '.env\nnode_modules/\n',
      '.env': 'API_TOKEN=sk-live-secret\n',
      'node_modules/dep/index.js': "module.exports = 'dep from the checkout';\n",
      'node_modules/dep/package.json': '{"name":"dep","version":"1.0.0","main":"index.js"}\n',
      'package.json': '{"name":"p","version":"1.0.0","dependencies":{"dep":"1.0.0"}}\n',
      'plan.yaml': [
        'name: hidden',
        'sandbox: bwrap',
        'steps:',
        '  - id: probe',
        `    run: 'cat ${checkout}/.env 2>/dev/null || echo no-env; git status --porcelain | wc -l; node -p "require(\\"dep\\")"'`,
        '',
      ].join('\n'),
    });
    await commitAll(checkout);
    const home = await tempDir('neo-e2e-checkout-home-');
    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], { cwd: checkout, env: { NEO_HOME: home } });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      steps: Array<{ id: string; outputs?: { stdout?: string } }>;
    };
    const lines = summary.steps[0]?.outputs?.stdout?.trim().split('\n');
    expect(lines).toEqual(['no-env', '0', 'dep from the checkout']);
  });

  it("a monorepo's workspace package run through node_modules/.bin runs the worktree's copy", async () => {
    // `.bin/app-cli -> ../@app/cli/bin.js`, `@app/cli -> ../../packages/cli`: followed from the
    // checkout's node_modules, it led into the checkout's sources, hidden (`not found`).
    const checkout = await mkdtemp('/var/tmp/neo-e2e-mono-');
    outsideTmp.push(checkout);
    await writeTree(checkout, {
      '.gitignore': 'node_modules/\n',
      'package.json': '{"name":"mono","private":true,"workspaces":["packages/*"]}\n',
      'packages/cli/package.json': '{"name":"@app/cli","bin":{"app-cli":"bin.js"}}\n',
      'packages/cli/bin.js': '#!/usr/bin/env node\nconsole.log(__dirname);\n',
      'plan.yaml': "name: mono\nsandbox: bwrap\nsteps:\n  - { id: probe, run: 'node_modules/.bin/app-cli' }\n",
    });
    await chmod(join(checkout, 'packages', 'cli', 'bin.js'), 0o755);
    await mkdir(join(checkout, 'node_modules', '@app'), { recursive: true });
    await mkdir(join(checkout, 'node_modules', '.bin'));
    await symlink('../../packages/cli', join(checkout, 'node_modules', '@app', 'cli'));
    await symlink('../@app/cli/bin.js', join(checkout, 'node_modules', '.bin', 'app-cli'));
    await commitAll(checkout);
    const home = await tempDir('neo-e2e-mono-home-');
    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], { cwd: checkout, env: { NEO_HOME: home } });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      steps: Array<{ id: string; outputs?: { stdout?: string } }>;
    };
    expect(summary.steps[0]?.outputs?.stdout?.trim()).toMatch(new RegExp(`^${home}/worktrees/[^/]+/packages/cli$`));
  });
});
