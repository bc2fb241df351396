/**
 * `neo trust` pins what it trusts: the privileged content of each project file as it was read
 * then. A backend program, a capability or a driver written into a trusted project's `.neo/`
 * afterwards (an agent's edit, a pull, a branch switch) is dropped as for an untrusted project,
 * with a warning naming the file, until the owner runs `neo trust` again. A prose edit is not
 * privileged and needs no re-trust.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const DESCRIPTOR = join(import.meta.dirname, '..', '..', 'definitions', 'backends', 'claude-code.yaml');
const CHANGED = 'changed since `neo trust`: run `neo trust` again to allow it';

async function trustedRepo(files: Record<string, string>): Promise<{
  root: string;
  repo: string;
  env: Record<string, string>;
  neo: (args: string[]) => ReturnType<typeof runNeo>;
}> {
  const root = await tempDir('neo-e2e-trust-pins-');
  const repo = join(root, 'repo');
  await writeTree(repo, { 'README.md': 'a project\n', ...files });
  await execa('git', ['init', '-q'], { cwd: repo });
  const env = { NEO_HOME: join(root, 'home'), HOME: root, NEO_CLAUDE_CODE_BIN: '' };
  return { root, repo, env, neo: (args) => runNeo(args, { cwd: repo, env }) };
}

/** A claude-code descriptor whose program is `bin`, a script that leaves a marker when run. */
function backendRunning(bin: string): string {
  return readFileSync(DESCRIPTOR, 'utf8').replace(/^ {2}bin: claude$/m, `  bin: ${bin}`);
}

async function markerProgram(path: string, marker: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\ntouch ${marker}\necho 1.0.0\n`, { mode: 0o755 });
}

describe('neo trust pins what it trusts', () => {
  it('a backend file changed after neo trust has its program run only after neo trust again', async () => {
    const { root, repo, neo } = await trustedRepo({});
    const first = join(root, 'first-ran');
    const second = join(root, 'second-ran');
    await markerProgram(join(root, 'first'), first);
    await markerProgram(join(root, 'second'), second);
    await writeTree(repo, { '.neo/definitions/backends/claude-code.yaml': backendRunning(join(root, 'first')) });

    const trusted = await neo(['trust']);
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.stdout.split('\n').slice(1)).toEqual([
      'pinned the privileged content of one file (a later change to it needs `neo trust` again):',
      '  .neo/definitions/backends/claude-code.yaml',
    ]);
    expect((await neo(['backends', 'list'])).exitCode).toBe(0);
    expect(existsSync(first)).toBe(true);

    // What an agent's edit or a pull does after the owner trusted the repository.
    await writeTree(repo, { '.neo/definitions/backends/claude-code.yaml': backendRunning(join(root, 'second')) });
    const changed = await neo(['backends', 'list']);
    expect(existsSync(second)).toBe(false);
    expect(changed.stdout + changed.stderr).toContain('claude-code');
    expect(changed.stderr).toContain('.neo/definitions/backends/claude-code.yaml:2:1: warning[DEF_UNTRUSTED_FIELD]');
    expect(changed.stderr).toContain(`this backend file is ignored (it names programs to run): ${CHANGED}`);

    expect((await neo(['trust'])).exitCode).toBe(0);
    const allowed = await neo(['backends', 'list']);
    expect(allowed.stderr).not.toContain('DEF_UNTRUSTED_FIELD');
    expect(existsSync(second)).toBe(true);
  });

  it("a persona's prose edit needs no re-trust; a privileged field added to it does", async () => {
    const { repo, neo } = await trustedRepo({
      '.neo/personas/boss.md': '---\ndescription: the boss\ndriver: true\n---\nDrive the work.\n',
    });
    expect((await neo(['trust'])).exitCode).toBe(0);
    await writeTree(repo, {
      '.neo/personas/boss.md': '---\ndescription: the boss, reworded\ndriver: true\n---\nDrive the work, carefully.\n',
    });
    const prose = await neo(['personas', 'show', 'boss', '--json']);
    expect(prose.stderr).toBe('');
    expect(JSON.parse(prose.stdout)).toMatchObject({ driver: true, description: 'the boss, reworded' });

    await writeTree(repo, {
      '.neo/personas/boss.md': '---\ndescription: the boss\ndriver: true\nhooks: { Stop: [] }\n---\nDrive.\n',
    });
    const hooked = await neo(['validate']);
    const dropped = [...hooked.stderr.matchAll(/boss\.md:(\d+):\d+: warning\[DEF_UNTRUSTED_FIELD\]: (.*)/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(dropped).toEqual([
      `3 \`driver\` (a driver persona: its allow rules and verify are not used; its deny rules still apply) is ignored: ${CHANGED}`,
      `4 \`hooks\` (hooks run programs) is ignored: ${CHANGED}`,
    ]);
    expect(JSON.parse((await neo(['personas', 'show', 'boss', '--json'])).stdout)).toMatchObject({ driver: false });
  });

  it('a capability file added after neo trust is ignored until neo trust again', async () => {
    const { repo, neo } = await trustedRepo({});
    const trusted = await neo(['trust']);
    expect(trusted.stdout.split('\n').slice(1)).toEqual([
      'pinned no file: none has privileged content yet; one added later applies after `neo trust` again',
    ]);
    await writeTree(repo, {
      '.neo/definitions/capabilities/house-rules.yaml': [
        'displayName: House rules',
        'description: how this project is run',
        'trustTier: T0',
        'source: { kind: builtin }',
        'detect: [{ fileExists: README.md }]',
        'provides: { instructions: Run make check. }',
        '',
      ].join('\n'),
    });
    const before = await neo(['capabilities', 'list']);
    expect(before.stdout).not.toContain('house-rules');
    expect(before.stderr).toContain(
      `house-rules.yaml:1:1: warning[DEF_UNTRUSTED_FIELD]: this capability file is ignored (it names programs to run): ${CHANGED}`,
    );

    const again = await neo(['trust']);
    expect(again.stdout).toContain('  .neo/definitions/capabilities/house-rules.yaml');
    const after = await neo(['capabilities', 'list']);
    expect(after.stdout).toContain('house-rules');
    expect(after.stderr).not.toContain('DEF_UNTRUSTED_FIELD');
  });

  it('a repository trusted before pins applies nothing privileged until neo trust again', async () => {
    const { root, repo, env, neo } = await trustedRepo({});
    const marker = join(root, 'ran');
    await markerProgram(join(root, 'prog'), marker);
    await writeTree(repo, { '.neo/definitions/backends/claude-code.yaml': backendRunning(join(root, 'prog')) });
    // trust.json as an older neo wrote it: the repository, no pins.
    await writeTree(env.NEO_HOME!, {
      'trust.json': JSON.stringify({
        version: 1,
        repos: { [realpathSync(repo)]: { trustedAt: '2026-01-01T00:00:00.000Z' } },
      }),
    });
    const old = await neo(['backends', 'list']);
    expect(existsSync(marker)).toBe(false);
    expect(old.stderr).toContain(
      'this backend file is ignored (it names programs to run): this repository was trusted before `neo trust` pinned what it allows: run `neo trust` again to allow it',
    );
    expect((await neo(['trust'])).exitCode).toBe(0);
    await neo(['backends', 'list']);
    expect(existsSync(marker)).toBe(true);
  });

  it('a persona naming a policy above acceptEdits, written after neo trust, is capped until neo trust again', async () => {
    const { repo, neo } = await trustedRepo({
      'plan.yaml': [
        'name: go',
        'defaults: { backend: script, maxPosture: full }',
        'steps:',
        '  - { id: go, persona: helper, brief: do it }',
        '',
      ].join('\n'),
      '.neo/personas/helper.md': '---\ndescription: helps\n---\nHelp.\n',
    });
    expect((await neo(['trust'])).exitCode).toBe(0);
    // No field of its own is privileged: the policy it names is how it would reach posture full.
    await writeTree(repo, { '.neo/personas/helper.md': '---\ndescription: helps\npolicy: autonomous\n---\nHelp.\n' });
    const dry = async () => {
      const result = await neo(['flow', 'run', 'plan.yaml', '--dry-run', '--json']);
      expect(result.exitCode, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { steps: Array<{ ceiling: string }>; untrusted: Array<{ message: string }> };
    };
    const capped = await dry();
    expect(capped.steps.map((s) => s.ceiling)).toEqual(['acceptEdits']);
    expect(capped.untrusted.map((d) => d.message)).toEqual([
      `\`policy: autonomous\` allows posture full; it is capped at acceptEdits: ${CHANGED}`,
    ]);
    expect((await neo(['trust'])).stdout).toContain('  .neo/personas/helper.md');
    const allowed = await dry();
    expect(allowed.steps.map((s) => s.ceiling)).toEqual(['full']);
    expect(allowed.untrusted).toEqual([]);
  });
});
