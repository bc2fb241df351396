import { execa, type ResultPromise } from 'execa';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEO_BIN } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { commitAll } from '../helpers/git.js';
import { tempDir } from '../helpers/temp.js';

export const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

/** A temp git repo holding copies of the named examples, committed, plus its own NEO_HOME. */
export async function repoWithExamples(...names: string[]): Promise<{ repo: string; home: string }> {
  const root = await tempDir('neo-e2e-');
  const repo = join(root, 'repo');
  for (const name of names) await cp(join(EXAMPLES, name), join(repo, name), { recursive: true });
  await commitAll(repo, 'examples');
  return { repo, home: join(root, 'home') };
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa('git', args, { cwd })).stdout;
}

/** Starts `neo` without waiting (for interrupts, crashes and approvals from another terminal). */
export function spawnNeo(args: string[], options: { cwd: string; home: string }): ResultPromise<{ reject: false }> {
  watchFolder(options.home);
  return execa(process.execPath, [NEO_BIN, ...args], {
    cwd: options.cwd,
    env: { NO_COLOR: '1', NEO_HOME: options.home },
    reject: false,
    stdin: 'ignore',
  }) as ResultPromise<{ reject: false }>;
}

/** Resolves when the child's stdout has printed a line matching `pattern`; returns the match. */
export function waitForOutput(
  child: ResultPromise,
  pattern: RegExp,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) {
        child[stream]?.off('data', onData);
        resolve(match);
      }
    };
    child[stream]?.on('data', onData);
    void child.then(() => reject(new Error(`neo exited before printing ${pattern}:\n${seen}`)), reject);
  });
}

/** The only run id under a fresh NEO_HOME. */
export async function onlyRunId(home: string): Promise<string> {
  const runs = (await readdir(join(home, 'runs'))).filter((name) => !name.includes('.'));
  if (runs.length !== 1) throw new Error(`expected one run, found ${runs.join(', ')}`);
  return runs[0]!;
}

export async function readEvents(
  home: string,
  runId: string,
): Promise<Array<Record<string, unknown> & { type: string; seq: number }>> {
  const text = await readFile(join(home, 'runs', runId, 'events.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}
