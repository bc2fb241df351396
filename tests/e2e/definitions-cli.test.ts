import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

async function sandbox() {
  const root = await tempDir();
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(root, { 'repo/.git/HEAD': 'ref: refs/heads/main\n', 'home/.keep': '' });
  return { home, repo, env: { NEO_HOME: home } };
}

describe('neo CLI: definitions', () => {
  it('--version prints the package version; help <cmd> prints that command', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect((await runNeo(['--version'])).stdout).toBe(pkg.version);
    const help = await runNeo(['help', 'validate']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: neo validate [options] [paths...]');
  });

  it('validate passes on the packaged layer and prints the set hash', async () => {
    const { repo, env } = await sandbox();
    const result = await runNeo(['validate'], { cwd: repo, env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^✓ \d+ definitions valid · set [0-9a-f]{8}$/);
  });

  it('validate reports file:line:col, a code frame and a hint, and exits 2', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { '.neo/personas/bad.md': '---\ndescription: bad\nmaxPosture: fulll\n---\n' });
    const result = await runNeo(['validate'], { cwd: repo, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      [
        '.neo/personas/bad.md:3:13: error[DEF_BAD_VALUE]: `maxPosture` must be one of plan, default, acceptEdits, full; got "fulll"',
        '  2 | description: bad',
        '> 3 | maxPosture: fulll',
        '    |             ^^^^^',
        '  hint: did you mean `full`?',
        '',
        '✗ 1 error, 0 warnings',
      ].join('\n'),
    );
  });

  it('validate --json prints the diagnostics array', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { 'plan.yaml': 'name: p\nsteps:\n  - id: a\n    persona: nobody\n    brief: x\n' });
    const result = await runNeo(['validate', 'plan.yaml', '--json'], { cwd: repo, env });
    expect(result.exitCode).toBe(2);
    const diagnostics = JSON.parse(result.stdout) as Array<{
      code: string;
      span: { start: { line: number; column: number } };
      pointer: string;
    }>;
    expect(diagnostics.map((d) => [d.code, d.span.start.line, d.span.start.column, d.pointer])).toEqual([
      ['DEF_UNKNOWN_PERSONA', 4, 14, '/steps/0/persona'],
    ]);
  });

  it('a missing path is a usage error, not a crash', async () => {
    const { repo, env } = await sandbox();
    const result = await runNeo(['validate', 'nope.yaml'], { cwd: repo, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('error[CLI_PATH_NOT_FOUND]: no such file or folder');
  });

  it('init scaffolds a persona and a flow that validate, with a schema modeline', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { 'README.md': 'hello\n' });
    await commitAll(repo);
    const init = await runNeo(['init'], { cwd: repo, env });
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain('created .neo/personas/project-helper.md');
    const flow = await readFile(join(repo, '.neo', 'flows', 'check-and-fix.flow.yaml'), 'utf8');
    expect(flow.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=.*schemas\/flow\.schema\.json$/);
    expect((await runNeo(['validate'], { cwd: repo, env })).exitCode).toBe(0);
    const again = await runNeo(['init'], { cwd: repo, env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('error[CLI_INIT_EXISTS]');
  });

  it('personas show names the origin and what it overrides; --json carries it', async () => {
    const { repo, env, home } = await sandbox();
    await writeTree(home, { 'agents/reviewer.md': '---\ndescription: my reviewer\n---\nBe strict.\n' });
    const result = await runNeo(['personas', 'show', 'reviewer', '--json'], { cwd: repo, env });
    expect(result.exitCode).toBe(0);
    const shown = JSON.parse(result.stdout) as {
      origin: { layer: string; file: string };
      overrides: Array<{ layer: string }>;
    };
    expect(shown.origin).toEqual({ layer: 'user', file: join(home, 'agents', 'reviewer.md') });
    expect(shown.overrides.map((o) => o.layer)).toEqual(['packaged']);
    const unknown = await runNeo(['personas', 'show', 'reviewr'], { cwd: repo, env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('hint: did you mean `reviewer`?');
  });

  it('trust makes a project driver persona take effect', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { '.neo/personas/boss.md': '---\ndescription: boss\ndriver: true\n---\n' });
    const before = JSON.parse((await runNeo(['personas', 'show', 'boss', '--json'], { cwd: repo, env })).stdout) as {
      driver: boolean;
      ignoredFields: string[];
    };
    expect(before).toMatchObject({ driver: false, ignoredFields: ['driver'] });
    expect((await runNeo(['trust'], { cwd: repo, env })).exitCode).toBe(0);
    const after = JSON.parse((await runNeo(['personas', 'show', 'boss', '--json'], { cwd: repo, env })).stdout) as {
      driver: boolean;
    };
    expect(after.driver).toBe(true);
  });

  it('schema prints a schema, --path its file, and rejects an unknown kind with a suggestion', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const schema = await runNeo(['schema', 'flow']);
    expect(JSON.parse(schema.stdout).$id).toBe(`https://unpkg.com/neo-flow@${pkg.version}/schemas/flow.schema.json`);
    expect((await runNeo(['schema', 'flow', '--path'])).stdout).toMatch(/schemas\/flow\.schema\.json$/);
    const bad = await runNeo(['schema', 'persna']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('hint: did you mean `persona`?');
  });

  it('an unknown command is a usage error (exit 2)', async () => {
    const result = await runNeo(['frobnicate']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('dev reloads on save, reports bad edits without exiting, and exits 130 on Ctrl-C', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { '.neo/personas/p.md': '---\ndescription: one\n---\n' });
    const child = execa(process.execPath, [NEO_BIN, 'dev'], {
      cwd: repo,
      env: { ...env, NO_COLOR: '1' },
      reject: false,
      buffer: true,
    });
    const lines: string[] = [];
    const waitFor = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => lines.some((l) => pattern.test(l)) && resolve();
        child.stdout!.on('data', (chunk: Buffer) => {
          lines.push(...chunk.toString().split('\n'));
          check();
        });
        check();
      });
    await waitFor(/watching for changes/);
    await writeTree(repo, { '.neo/personas/p.md': '---\ndescription: one\nmaxPosture: fulll\n---\n' });
    await waitFor(/✗ \.neo\/personas\/p\.md: 1 error/);
    await writeTree(repo, { '.neo/personas/p.md': '---\ndescription: two\n---\n' });
    await waitFor(/✓ \.neo\/personas\/p\.md reloaded · set [0-9a-f]{8}/);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toContain('.neo/personas/p.md:3:13: error[DEF_BAD_VALUE]');
  });
});
