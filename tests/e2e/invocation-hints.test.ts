/**
 * The commands neo suggests are said as the person invoked neo: `npx neo flow clean …` under npx
 * (npm_command=exec), `node_modules/.bin/neo …` when that path was run, `neo …` otherwise — in
 * the summary, `neo flow show`, and an error's hint.
 */
import { execa } from 'execa';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** A repository with a failing flow and a local install's bin link to this neo; `neo` runs it as npx would. */
async function repo() {
  const root = await tempDir('neo-e2e-invocation-');
  const dir = join(root, 'repo');
  await writeTree(dir, { 'fail.flow.yaml': 'name: fail\nsteps:\n  - id: s\n    run: "echo new > x.txt; exit 1"\n' });
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '-A');
  await git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(NEO_BIN, join(dir, 'node_modules', '.bin', 'neo'));
  const home = join(root, 'home');
  const neo = async (args: string[], npmCommand: string) => {
    const result = await execa(process.execPath, [join(dir, 'node_modules', '.bin', 'neo'), ...args], {
      cwd: dir,
      env: { NO_COLOR: '1', NEO_HOME: home, npm_command: npmCommand },
      reject: false,
    });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  };
  return { dir, home, neo };
}

describe('suggested commands', () => {
  it('say `npx neo` under npx: the summary, flow show, an error hint', async () => {
    const { neo } = await repo();
    const run = await neo(['flow', 'run', 'fail.flow.yaml'], 'exec');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/remove it \(its uncommitted work too\): npx neo flow clean \S+ --force/);
    expect(run.stdout).toMatch(/resume: npx neo flow resume \S+/);
    expect(run.stdout).not.toMatch(/(?<!npx )neo flow/);
    const runId = /^run (\S+)/.exec(run.stdout)![1]!;
    const shown = await neo(['flow', 'show', runId], 'exec');
    expect(shown.stdout).toMatch(/npx neo flow clean \S+ --force/);
    expect(shown.stdout).toMatch(/resume: npx neo flow resume \S+/);
    const missing = await neo(['flow', 'show', '20260101-000000-abcdef'], 'exec');
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain('hint: list runs with `npx neo flow list`');
    expect(missing.stderr).not.toMatch(/(?<!npx )neo flow/);
  });

  it('say the path that was run for a local install, and `neo` otherwise', async () => {
    const { dir, home, neo } = await repo();
    const local = await neo(['flow', 'run', 'fail.flow.yaml'], '');
    expect(local.stdout).toMatch(/: node_modules\/\.bin\/neo flow clean \S+ --force/);
    // npm's variables reach neo started any other way (a test runner npx started): they say nothing.
    const plain = await runNeo(['flow', 'run', 'fail.flow.yaml'], {
      cwd: dir,
      env: { NEO_HOME: home, npm_command: '' },
    });
    expect(plain.stdout).toMatch(/: neo flow clean \S+ --force/);
  });
});
