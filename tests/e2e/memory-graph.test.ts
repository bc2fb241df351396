/**
 * The code graph through the binary: `neo memory index` (then again: nothing parsed), `neo memory
 * query`, `neo memory map`, and the MCP server's find_symbol and tests_for answering with the
 * right file and line.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { memoryClient, text } from './memory-helpers.js';

describe('neo memory index / query / map / mcp', () => {
  it('indexes a repository, answers queries and serves the graph over MCP', async () => {
    const root = await tempDir('neo-e2e-graph-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, {
      'src/parse.ts':
        "import { tokens } from './lex.js';\n\nexport function parseDate(text: string): Date {\n  return new Date(tokens(text)[0]!);\n}\n",
      'src/lex.ts': "export function tokens(text: string): string[] {\n  return text.split(' ');\n}\n",
      'test/parse.test.ts': "import { parseDate } from '../src/parse.js';\nparseDate('2026-01-01');\n",
    });
    await git(repo, 'init', '-q');
    const env = { NEO_HOME: home };
    const first = await runNeo(['memory', 'index', '--json'], { cwd: repo, env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ files: 3, parsed: 3, unchanged: 0 });
    const again = await runNeo(['memory', 'index', '--json'], { cwd: repo, env });
    expect(JSON.parse(again.stdout)).toMatchObject({ files: 3, parsed: 0, unchanged: 3 });

    const symbol = await runNeo(['memory', 'query', 'symbol', 'parseDate'], { cwd: repo, env });
    expect(symbol.stdout.trim()).toBe('src/parse.ts:3: function parseDate(text: string): Date');
    const callers = await runNeo(['memory', 'query', 'callers', 'tokens', '--json'], { cwd: repo, env });
    expect(JSON.parse(callers.stdout)).toEqual([{ caller: 'parseDate', file: 'src/parse.ts', lines: [4] }]);
    const tests = await runNeo(['memory', 'query', 'tests-for', 'src/parse.ts'], { cwd: repo, env });
    expect(tests.stdout.trim()).toBe('test/parse.test.ts: imports src/parse.ts');
    const bad = await runNeo(['memory', 'query', 'who', 'x'], { cwd: repo, env });
    expect(bad.exitCode).toBe(2);

    const map = await runNeo(['memory', 'map', 'src/parse.ts', '--tokens', '100'], { cwd: repo, env });
    expect(map.stdout.split('\n').slice(0, 2)).toEqual([
      'src/parse.ts:',
      '  3: function parseDate(text: string): Date',
    ]);

    const client = await memoryClient(repo, home);
    const found = await client.callTool({ name: 'find_symbol', arguments: { name: 'tokens' } });
    expect(JSON.parse(text(found)).definitions).toEqual([
      {
        name: 'tokens',
        kind: 'function',
        file: 'src/lex.ts',
        startLine: 1,
        endLine: 3,
        signature: 'function tokens(text: string): string[]',
      },
    ]);
    const forTests = await client.callTool({ name: 'tests_for', arguments: { target: 'parseDate' } });
    expect(JSON.parse(text(forTests)).tests).toEqual([{ file: 'test/parse.test.ts', why: 'imports src/parse.ts' }]);
    const outline = await client.callTool({ name: 'file_outline', arguments: { path: 'src/parse.ts' } });
    expect(JSON.parse(text(outline)).outline.map((s: { name: string }) => s.name)).toEqual(['parseDate']);
  });
});
