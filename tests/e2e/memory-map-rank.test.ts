/**
 * The repository map's ranking through the binary: personalised PageRank over who uses whose
 * definitions. Unpersonalised, the file everyone uses leads; personalised by a file, that file
 * leads and its neighbours follow — what it uses and what uses it — ahead of the busy hub it
 * never touches; personalised by a symbol, the file defining it leads.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const users = Object.fromEntries(
  [1, 2, 3, 4, 5, 6].map((n) => [
    `src/f${n}.ts`,
    `import { log } from './hub.js';\nexport function work${n}() {\n  log('f${n}');\n}\n`,
  ]),
);

describe('neo memory map: the ranking', () => {
  it("puts the named file's neighbours first, and a named symbol's file", async () => {
    const root = await tempDir('neo-e2e-map-rank-');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      ...users,
      'src/hub.ts': 'export function log(message: string) {\n  return message;\n}\n',
      'src/b.ts': 'export function parseB(text: string) {\n  return text;\n}\n',
      'src/a.ts': "import { parseB } from './b.js';\nexport function runA() {\n  return parseB('x');\n}\n",
      'src/z-caller.ts': "import { runA } from './a.js';\nexport function callIt() {\n  return runA();\n}\n",
    });
    await git(repo, 'init', '-q');
    const env = { NEO_HOME: join(root, 'home') };
    expect((await runNeo(['memory', 'index'], { cwd: repo, env })).exitCode).toBe(0);
    const order = async (...args: string[]) => {
      const map = await runNeo(['memory', 'map', ...args, '--tokens', '2000'], { cwd: repo, env });
      expect(map.exitCode, map.stderr).toBe(0);
      return map.stdout
        .split('\n')
        .filter((line) => line.endsWith(':') && !line.startsWith(' '))
        .map((line) => line.slice(0, -1));
    };

    expect((await order())[0]).toBe('src/hub.ts');
    // a.ts uses b.ts; z-caller.ts uses a.ts: both neighbours, ahead of the hub and its users.
    expect((await order('src/a.ts')).slice(0, 3)).toEqual(['src/a.ts', 'src/b.ts', 'src/z-caller.ts']);
    expect((await order('--symbol', 'parseB')).slice(0, 3)).toEqual(['src/b.ts', 'src/a.ts', 'src/z-caller.ts']);
  });
});
