/**
 * What a run step hands back to neo: `$NEO_OUTPUT` is a file in a fresh folder of its own (an unconfined step's: a fresh name in its run's folder), never
 * the run's folder, read once without following a link, only when it is a regular file, capped.
 * A confined step can neither make neo read a host file for it (a link planted at `$NEO_OUTPUT`)
 * nor reach the run's own records (plan.json, events.jsonl) to rewrite them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const SECRET = 'AKIAexfiltrated0secret';

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-output-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  const userHome = join(root, 'user');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await writeTree(userHome, { '.aws/credentials': `[default]\naws_secret_access_key=${SECRET}\n` });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: userHome } });
  return { repo, home, userHome, neo };
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

/** Every file of the run folders under `home`, as one text. */
function runText(home: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(home, 'runs'));
  return out.join('\n');
}

describe('$NEO_OUTPUT: a fresh file read once, never a way out', () => {
  it('a link planted at $NEO_OUTPUT is not followed: nothing of the target reaches the next step or the records', async () => {
    const { home, neo } = await project({
      'steal.flow.yaml': [
        'name: steal',
        'sandbox: bwrap',
        'steps:',
        `  - { id: plant, run: 'echo ok=1 > "$NEO_OUTPUT" && rm -f "$NEO_OUTPUT" && ln -s "$HOME/.aws/credentials" "$NEO_OUTPUT"' }`,
        "  - { id: use, needs: [plant], run: 'env' }",
        '',
      ].join('\n'),
    });
    const result = await neo(['flow', 'run', 'steal.flow.yaml', '--json']);
    expect(result.stdout).not.toContain(SECRET);
    expect(runText(home)).not.toContain(SECRET);
    expect(summary(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_OUTPUT_INVALID', exitCode: 1 });
    expect(result.stdout).toMatch(/\$NEO_OUTPUT is not a regular file/);
  });

  it('outputs a step writes reach the next step; a FIFO or a file past the cap fails the step, saying so', async () => {
    const { home, neo } = await project({
      'ok.flow.yaml': [
        'name: ok',
        'sandbox: bwrap',
        'steps:',
        `  - { id: a, run: 'echo answer=42 >> "$NEO_OUTPUT"; echo "where=$NEO_OUTPUT" >> "$NEO_OUTPUT"' }`,
        `  - { id: b, needs: [a], run: 'test "$NEO_STEP_A_ANSWER" = 42' }`,
        '',
      ].join('\n'),
      'fifo.flow.yaml': `name: fifo\nsandbox: bwrap\nsteps:\n  - { id: a, run: 'mkfifo "$NEO_OUTPUT"' }\n`,
      'big.flow.yaml': `name: big\nsandbox: bwrap\nsteps:\n  - { id: a, run: 'head -c 2000000 /dev/zero | tr "\\\\0" x > "$NEO_OUTPUT"' }\n`,
    });
    const ok = await neo(['flow', 'run', 'ok.flow.yaml', '--json']);
    expect(summary(ok.stdout), ok.stdout).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const where = /"where":"([^"]+)"/.exec(ok.stdout)?.[1];
    expect(where).toBeDefined();
    // A folder of its own, outside the run's folder, removed once read.
    expect(where!.startsWith(join(home, 'io') + '/')).toBe(true);
    expect(existsSync(where!)).toBe(false);
    expect(readdirSync(join(home, 'io'))).toEqual([]);
    // A FIFO would block a reader waiting for a writer that never comes: it is refused unopened.
    const fifo = await neo(['flow', 'run', 'fifo.flow.yaml', '--json']);
    expect(summary(fifo.stdout)).toMatchObject({ cause: 'FLOW_OUTPUT_INVALID', exitCode: 1 });
    expect(fifo.stdout).toMatch(/\$NEO_OUTPUT is not a regular file \(a FIFO\)/);
    const big = await neo(['flow', 'run', 'big.flow.yaml', '--json']);
    expect(summary(big.stdout)).toMatchObject({ cause: 'FLOW_OUTPUT_INVALID', exitCode: 1 });
    expect(big.stdout).toMatch(/\$NEO_OUTPUT holds more than 1 MB/);
  });

  it("unconfined steps: each its own file in the run's folder, a planted link not followed, a removed folder made anew, nothing left", async () => {
    const { home, userHome, neo } = await project({
      'none.flow.yaml': [
        'name: none',
        'workspace: { isolation: inplace }',
        'sandbox: none',
        'steps:',
        `  - { id: a, run: 'echo n=1 >> "$NEO_OUTPUT"; echo "where=$NEO_OUTPUT" >> "$NEO_OUTPUT"' }`,
        `  - { id: b, run: 'echo n=2 >> "$NEO_OUTPUT"; echo "where=$NEO_OUTPUT" >> "$NEO_OUTPUT"' }`,
        // Its first attempt removes the run's output folder (and fails: its file is gone with it).
        `  - { id: gone, needs: [a, b], retry: { attempts: 2, backoff: 10ms, on: any }, run: 'test -e gone || { touch gone; rm -rf "$(dirname "$NEO_OUTPUT")"; }' }`,
        `  - { id: c, needs: [a, b, gone], run: 'echo "sum=$((NEO_STEP_A_N + NEO_STEP_B_N))" >> "$NEO_OUTPUT"' }`,
        `  - { id: d, needs: [c], run: 'test "$NEO_STEP_C_SUM" = 3 && ln -s "$HOME/.aws/credentials" "$NEO_OUTPUT"' }`,
        '',
      ].join('\n'),
    });
    const result = await neo(['flow', 'run', 'none.flow.yaml', '--json']);
    expect(summary(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_OUTPUT_INVALID', exitCode: 1 });
    expect(result.stdout).toMatch(/\$NEO_OUTPUT is not a regular file/);
    expect(result.stdout).not.toContain(SECRET);
    expect(runText(home)).not.toContain(SECRET);
    const where = [...result.stdout.matchAll(/"where":"([^"]+)"/g)].map((m) => m[1]!);
    expect(new Set(where).size).toBe(2);
    for (const file of where) expect(file.startsWith(join(home, 'io') + '/')).toBe(true);
    // The link was removed, never followed: its target is untouched.
    expect(readFileSync(join(userHome, '.aws/credentials'), 'utf8')).toContain(SECRET);
    expect(readdirSync(join(home, 'io'))).toEqual([]);
  });

  it("a confined step cannot reach the run's own folder (plan.json, events.jsonl)", async () => {
    const { home, neo } = await project({
      'forge.flow.yaml': [
        'name: forge',
        'sandbox: bwrap',
        'steps:',
        `  - { id: a, run: 'ls "$NEO_HOME/runs" && for d in "$NEO_HOME"/runs/*/; do echo FORGED-PLAN > "$d/plan.json"; done' }`,
        '',
      ].join('\n'),
    });
    const result = await neo(['flow', 'run', 'forge.flow.yaml', '--json']);
    expect(summary(result.stdout)).toMatchObject({ cause: 'FLOW_COMMAND_FAILED', exitCode: 1 });
    expect(result.stdout).toMatch(/No such file or directory/);
    const runs = readdirSync(join(home, 'runs')).filter((name) => !name.includes('.'));
    expect(runs).toHaveLength(1);
    const plan = readFileSync(join(home, 'runs', runs[0]!, 'plan.json'), 'utf8');
    expect(plan.startsWith('FORGED-PLAN')).toBe(false);
    expect(JSON.parse(plan)).toMatchObject({ name: 'forge' });
  });
});
