import { chmod, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackgroundShells, builtinTools, selectTools, type AgentTool } from '../../../engine/agent/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

async function tools(cwd: string): Promise<Record<string, AgentTool>> {
  const list = builtinTools({
    cwd,
    env: process.env,
    shells: new BackgroundShells(join(cwd, '.shells')),
    execTimeoutMs: 10_000,
    ripgrep: null,
  });
  return Object.fromEntries(list.map((t) => [t.spec.name, t]));
}

const signal = new AbortController().signal;
const run = (tool: AgentTool | undefined, input: Record<string, unknown>) => tool!.run(input, { signal });

describe('read_file', () => {
  it('numbers lines and reads a range', async () => {
    const cwd = await tempDir();
    await writeTree(cwd, { 'a.txt': Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
    const t = await tools(cwd);
    expect(await run(t.read_file, { path: 'a.txt', offset: 9, limit: 2 })).toEqual({
      output: ' 9\tline 9\n10\tline 10\n[lines 9-10 of 12]',
      isError: false,
    });
    expect((await run(t.read_file, { path: 'a.txt' })).output.split('\n')[0]).toBe(' 1\tline 1');
    expect(await run(t.read_file, { path: 'a.txt', offset: 13 })).toEqual({
      output: 'a.txt has 12 lines; offset 13 is past the end',
      isError: true,
    });
  });

  it('refuses binary files, folders and missing files', async () => {
    const cwd = await tempDir();
    await writeTree(cwd, {
      'img.bin': new Uint8Array([0x89, 0x50, 0x00, 0x01]),
      'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      'dir/x': '',
    });
    const t = await tools(cwd);
    expect(await run(t.read_file, { path: 'img.bin' })).toEqual({
      output: 'img.bin is a binary file (4 bytes); not shown',
      isError: true,
    });
    expect((await run(t.read_file, { path: 'latin1.txt' })).isError).toBe(true);
    expect(await run(t.read_file, { path: 'dir' })).toEqual({
      output: 'dir is a directory; use glob to list files',
      isError: true,
    });
    expect(await run(t.read_file, { path: 'nope' })).toEqual({ output: 'no such file: nope', isError: true });
    await expect(run(t.read_file, {})).rejects.toThrow('"path" is required and must be a non-empty string');
  });

  it('decides on the bytes when the decoded text only may be binary', async () => {
    const cwd = await tempDir();
    const pad = 'x'.repeat(9000);
    await writeTree(cwd, {
      // A real U+FFFD is text; so is a NUL, or a byte that is not UTF-8, past the first 8 KB sniffed.
      'replacement.txt': 'a \uFFFD b\n',
      'late-nul.txt': Buffer.concat([Buffer.from(`${pad}\n`), Buffer.from([0x00, 0x0a])]),
      'late-latin1.txt': Buffer.concat([Buffer.from(`${pad}\n`), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]),
      'early-nul.txt': Buffer.from([0x61, 0x00, 0x0a]),
    });
    const t = await tools(cwd);
    expect(await run(t.read_file, { path: 'replacement.txt' })).toEqual({ output: '1\ta \uFFFD b', isError: false });
    expect(await run(t.read_file, { path: 'late-nul.txt', offset: 2 })).toEqual({
      output: '2\t\u0000\n[lines 2-2 of 2]',
      isError: false,
    });
    expect(await run(t.read_file, { path: 'late-latin1.txt', offset: 2 })).toEqual({
      output: '2\tcaf\uFFFD\n[lines 2-2 of 2]',
      isError: false,
    });
    expect(await run(t.read_file, { path: 'early-nul.txt' })).toEqual({
      output: 'early-nul.txt is a binary file (3 bytes); not shown',
      isError: true,
    });
  });

  it('reads a file over the synchronous-read size the same way', async () => {
    const cwd = await tempDir();
    // ~1.9 MB: past the 1 MB that is read synchronously, so the asynchronous path reads it.
    await writeTree(cwd, { 'big.txt': Array.from({ length: 150_000 }, (_, i) => `row ${i + 1}`).join('\n') + '\n' });
    const t = await tools(cwd);
    expect(await run(t.read_file, { path: 'big.txt', offset: 149_999 })).toEqual({
      output: '149999\trow 149999\n150000\trow 150000\n[lines 149999-150000 of 150000]',
      isError: false,
    });
  });

  it('refuses a FIFO at once: a blocking open would hold a thread of the pool until a writer came', async () => {
    const cwd = await tempDir();
    execFileSync('mkfifo', [join(cwd, 'pipe')]);
    const t = await tools(cwd);
    await expect(run(t.read_file, { path: 'pipe' })).rejects.toThrow(/is a named pipe \(FIFO\); it is not read/);
  });

  it('refuses a device outside the working directory instead of reading it forever', async () => {
    const t = await tools(await tempDir());
    await expect(run(t.read_file, { path: '/dev/zero' })).rejects.toThrow(
      /^refused: \/dev\/zero is outside the workspace .*; neo's tools work inside the working directory only$/,
    );
  }, 20_000);
});

describe('write_file and edit', () => {
  it('writes atomically, creating folders, and keeps an existing file’s mode', async () => {
    const cwd = await tempDir();
    const t = await tools(cwd);
    expect(await run(t.write_file, { path: 'src/new.ts', content: 'export {};\n' })).toEqual({
      output: 'created src/new.ts (11 bytes)',
      isError: false,
    });
    await writeFile(join(cwd, 'run.sh'), 'echo 1\n');
    await chmod(join(cwd, 'run.sh'), 0o755);
    expect((await run(t.write_file, { path: 'run.sh', content: 'echo 2\n' })).output).toBe('replaced run.sh (7 bytes)');
    expect((await stat(join(cwd, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(cwd, 'run.sh'), 'utf8')).toBe('echo 2\n');
  });

  it('replaces exactly one occurrence, and refuses an ambiguous or missing one', async () => {
    const cwd = await tempDir();
    await writeTree(cwd, { 'f.ts': 'let a = 1;\nlet b = 1;\nlet c = 2;\n' });
    const t = await tools(cwd);
    expect(await run(t.edit, { path: 'f.ts', old_string: '= 1', new_string: '= 9' })).toEqual({
      output: 'old_string occurs 2 times in f.ts; include more surrounding lines to make it unique, or set replace_all',
      isError: true,
    });
    expect(await run(t.edit, { path: 'f.ts', old_string: 'let z', new_string: 'x' })).toEqual({
      output: 'old_string was not found in f.ts',
      isError: true,
    });
    expect(await run(t.edit, { path: 'f.ts', old_string: 'let c = 2;', new_string: 'let c = $&$1;' })).toEqual({
      output: 'edited f.ts: replaced 1 occurrence',
      isError: false,
    });
    expect(await run(t.edit, { path: 'f.ts', old_string: '= 1', new_string: '= 3', replace_all: true })).toEqual({
      output: 'edited f.ts: replaced 2 occurrences',
      isError: false,
    });
    expect(await readFile(join(cwd, 'f.ts'), 'utf8')).toBe('let a = 3;\nlet b = 3;\nlet c = $&$1;\n');
    expect(await run(t.edit, { path: 'g.ts', old_string: '', new_string: 'new file\n' })).toEqual({
      output: 'created g.ts',
      isError: false,
    });
    expect((await run(t.edit, { path: 'g.ts', old_string: '', new_string: 'again' })).isError).toBe(true);
  });
});

describe('every file tool stays inside the working directory', () => {
  it('refuses an absolute path elsewhere, ../x, a symlink out and a dangling symlink, whatever the tool', async () => {
    const root = await tempDir();
    const cwd = join(root, 'ws');
    const outside = join(root, 'outside');
    await writeTree(root, { 'ws/inside.txt': 'in\n', 'outside/secret.txt': 'secret\n' });
    await symlink(outside, join(cwd, 'link'));
    await symlink(join(outside, 'nothing'), join(cwd, 'dangling'));
    const t = await tools(cwd);
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['write_file', { path: join(outside, 'abs.txt'), content: 'x' }],
      ['write_file', { path: '../outside/rel.txt', content: 'x' }],
      ['write_file', { path: 'link/through.txt', content: 'x' }],
      ['write_file', { path: 'dangling', content: 'x' }],
      ['edit', { path: 'link/secret.txt', old_string: 'secret', new_string: 'leaked' }],
      ['edit', { path: '../outside/new.txt', old_string: '', new_string: 'x' }],
      ['read_file', { path: join(outside, 'secret.txt') }],
      ['read_file', { path: 'link/secret.txt' }],
      ['grep', { pattern: 'secret', path: outside }],
      ['glob', { pattern: '**', path: 'link' }],
    ];
    for (const [name, input] of attempts)
      await expect(run(t[name], input), `${name} ${JSON.stringify(input)}`).rejects.toThrow(
        /^refused: .* (is outside the workspace|cannot be checked).*; neo's tools work inside the working directory only$/,
      );
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    // Inside, absolute or relative, works as before.
    expect((await run(t.write_file, { path: join(cwd, 'new.txt'), content: 'x' })).isError).toBe(false);
    expect((await run(t.read_file, { path: 'inside.txt' })).output).toBe('1\tin');
  });
});

describe('grep and glob', () => {
  const tree = {
    'src/a.ts': 'const alpha = 1;\nconst Beta = 2;\n',
    'src/deep/b.ts': 'alpha again\n',
    'notes.md': 'alpha in docs\n',
    'node_modules/x/i.ts': 'alpha hidden\n',
    'bin.dat': new Uint8Array([0, 97, 108, 112, 104, 97]),
  };

  it('finds lines with the pure-Node search, skipping node_modules and binaries', async () => {
    const cwd = await tempDir();
    await writeTree(cwd, tree);
    const t = await tools(cwd);
    expect(await run(t.grep, { pattern: 'alpha' })).toEqual({
      output: 'notes.md:1:alpha in docs\nsrc/a.ts:1:const alpha = 1;\nsrc/deep/b.ts:1:alpha again',
      isError: false,
    });
    expect(await run(t.grep, { pattern: 'beta', ignore_case: true, glob: '*.ts' })).toEqual({
      output: 'src/a.ts:2:const Beta = 2;',
      isError: false,
    });
    expect(await run(t.grep, { pattern: 'alpha', files_only: true, path: 'src' })).toEqual({
      output: 'src/a.ts\nsrc/deep/b.ts',
      isError: false,
    });
    expect(await run(t.grep, { pattern: 'alpha', max_results: 1 })).toEqual({
      output: 'notes.md:1:alpha in docs\n[first 1 results; narrow the search]',
      isError: false,
    });
    expect(await run(t.grep, { pattern: 'zzz' })).toEqual({ output: 'no matches', isError: false });
    expect((await run(t.grep, { pattern: '(' })).output).toMatch(/^invalid regular expression/);
  });

  it('uses ripgrep when it is installed, with the same output', async (context) => {
    const { findRipgrep } = await import('../../../engine/agent/index.js');
    const rg = findRipgrep();
    if (rg === null) {
      context.skip();
      return;
    }
    const cwd = await tempDir();
    await writeTree(cwd, tree);
    const grep = builtinTools({
      cwd,
      env: process.env,
      shells: new BackgroundShells(join(cwd, '.s')),
      execTimeoutMs: 1000,
      ripgrep: rg,
    }).find((x) => x.spec.name === 'grep')!;
    expect(await grep.run({ pattern: 'alpha' }, { signal })).toEqual({
      output: 'notes.md:1:alpha in docs\nsrc/a.ts:1:const alpha = 1;\nsrc/deep/b.ts:1:alpha again',
      isError: false,
    });
    expect(await grep.run({ pattern: 'beta', ignore_case: true, glob: '*.ts' }, { signal })).toEqual({
      output: 'src/a.ts:2:const Beta = 2;',
      isError: false,
    });
  });

  it('globs with **, braces and character classes', async () => {
    const cwd = await tempDir();
    await writeTree(cwd, tree);
    const t = await tools(cwd);
    expect(await run(t.glob, { pattern: '**/*.ts' })).toEqual({ output: 'src/a.ts\nsrc/deep/b.ts', isError: false });
    expect(await run(t.glob, { pattern: '*.{md,dat}' })).toEqual({ output: 'bin.dat\nnotes.md', isError: false });
    expect(await run(t.glob, { pattern: '[a-z]*.ts', path: 'src' })).toEqual({ output: 'a.ts', isError: false });
    expect(await run(t.glob, { pattern: '*.py' })).toEqual({ output: 'no files match', isError: false });
  });
});

describe('selecting tools', () => {
  it('maps Claude Code names and rejects unknown ones', async () => {
    const all = await tools(await tempDir());
    const list = Object.values(all);
    expect(selectTools(list, ['Read', 'Grep', 'edit']).map((t) => t.spec.name)).toEqual(['read_file', 'edit', 'grep']);
    expect(selectTools(list, undefined, ['Bash']).map((t) => t.spec.name)).toEqual([
      'read_file',
      'write_file',
      'edit',
      'grep',
      'glob',
    ]);
    expect(() => selectTools(list, ['Read', 'WebFetch'])).toThrow(
      'allowedTools names "WebFetch", which the neo agent does not have',
    );
  });
});
