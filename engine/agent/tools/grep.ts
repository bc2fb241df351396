/**
 * grep: lines matching a regular expression, as `path:line:text`. Uses ripgrep when it is on
 * PATH (fast, honours .gitignore); otherwise a pure-Node search that skips .git, node_modules and
 * binary files (it does not read .gitignore).
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { spawnProcess } from '../../execution/index.js';
import { findOwnProgram } from '../../util/own-programs.js';
import type { AgentTool } from '../tool.js';
import { optionalBool, optionalInt, optionalString, requireString } from '../tool.js';
import { looksBinary } from './binary.js';
import { fileFilter } from './glob-match.js';
import { confinedPath, displayPath } from './paths.js';
import { openInside } from './pinned-io.js';
import { walkFiles } from './walk.js';

const DEFAULT_MAX = 200;
const MAX_LINE = 500;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface GrepOptions {
  cwd: string;
  /** The ripgrep binary, or null to force the pure-Node search (default: found on PATH). */
  ripgrep?: string | null;
}

export function grepTool(options: GrepOptions): AgentTool {
  const { cwd } = options;
  return {
    effect: 'read',
    spec: {
      name: 'grep',
      description:
        'Searches file contents for a regular expression and returns matching lines as path:line:text (or only paths with files_only). Search a folder or one file; filter files with a glob such as "*.ts".',
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'Regular expression.' },
          path: { type: 'string', description: 'File or folder to search (default: the working directory).' },
          glob: {
            type: 'string',
            description: 'Only files matching this glob (a pattern without / matches file names at any depth).',
          },
          ignore_case: { type: 'boolean', description: 'Case-insensitive.' },
          files_only: { type: 'boolean', description: 'Return only the paths of files with a match.' },
          max_results: { type: 'integer', minimum: 1, description: `Most lines to return (default ${DEFAULT_MAX}).` },
        },
        required: ['pattern'],
      },
    },
    async run(input, context) {
      const query: GrepQuery = {
        pattern: requireString(input, 'pattern'),
        root: await confinedPath(cwd, optionalString(input, 'path') ?? '.'),
        glob: optionalString(input, 'glob'),
        ignoreCase: optionalBool(input, 'ignore_case') ?? false,
        filesOnly: optionalBool(input, 'files_only') ?? false,
        max: optionalInt(input, 'max_results', 1) ?? DEFAULT_MAX,
      };
      try {
        await stat(query.root);
      } catch {
        return { output: `no such file or folder: ${displayPath(cwd, query.root)}`, isError: true };
      }
      const rg = options.ripgrep === undefined ? findRipgrep() : options.ripgrep;
      const result = rg !== null ? await ripgrep(rg, cwd, query, context.signal) : await nodeGrep(cwd, query);
      if ('error' in result) return { output: result.error, isError: true };
      if (result.lines.length === 0) return { output: 'no matches', isError: false };
      return {
        output: result.lines.join('\n') + (result.more ? `\n[first ${query.max} results; narrow the search]` : ''),
        isError: false,
      };
    },
  };
}

interface GrepQuery {
  pattern: string;
  root: string;
  glob: string | undefined;
  ignoreCase: boolean;
  filesOnly: boolean;
  max: number;
}

type GrepResult = { lines: string[]; more: boolean } | { error: string };

/**
 * The rg binary on PATH, or null. Run unconfined: never a `rg` from a folder a confined step
 * writes (util/own-programs.ts); looked up at each search, as the trees never searched grow.
 */
export function findRipgrep(): string | null {
  return findOwnProgram('rg') ?? null;
}

async function ripgrep(rg: string, cwd: string, query: GrepQuery, signal: AbortSignal): Promise<GrepResult> {
  const args = ['--no-heading', '--color', 'never', '--max-columns', String(MAX_LINE), '--max-columns-preview'];
  args.push(query.filesOnly ? '--files-with-matches' : '--line-number');
  if (query.ignoreCase) args.push('--ignore-case');
  if (query.glob !== undefined) args.push('--glob', query.glob);
  // Like the Node search: node_modules is skipped even outside a git repository.
  args.push('--glob', '!node_modules', '--regexp', query.pattern);
  // Searching the working directory itself: no path argument, so rg prints `src/a.ts`, not `./src/a.ts`.
  if (resolve(query.root) !== resolve(cwd)) args.push('--', displayPath(cwd, query.root));
  const result = await spawnProcess([rg, ...args], {
    cwd,
    env: process.env,
    signal,
    tailChars: 64 * 1024 * 1024,
    label: 'rg',
  }).result;
  if (result.exitCode === 1) return { lines: [], more: false };
  if (result.exitCode !== 0)
    return {
      error: `grep failed: ${result.stderr.trim() || result.spawnError || `exit ${result.exitCode ?? result.signal}`}`,
    };
  const lines = result.stdout
    .split('\n')
    .filter((l) => l !== '')
    .sort(byPathThenLine);
  return { lines: lines.slice(0, query.max), more: lines.length > query.max };
}

/** Sorts `path:line:text` lines by path, then line number, so results are deterministic. */
function byPathThenLine(a: string, b: string): number {
  const [pa, la] = splitHit(a);
  const [pb, lb] = splitHit(b);
  return pa < pb ? -1 : pa > pb ? 1 : la - lb;
}

function splitHit(line: string): [string, number] {
  const match = /^(.*?):(\d+):/.exec(line);
  return match ? [match[1]!, Number(match[2])] : [line, 0];
}

async function nodeGrep(cwd: string, query: GrepQuery): Promise<GrepResult> {
  let regex: RegExp;
  try {
    regex = new RegExp(query.pattern, query.ignoreCase ? 'i' : '');
  } catch (error) {
    return { error: `invalid regular expression: ${(error as Error).message}` };
  }
  const filter = query.glob !== undefined ? fileFilter(query.glob) : () => true;
  const isFile = (await stat(query.root)).isFile();
  const files = isFile ? single(query.root) : walkAbsolute(query.root, filter);
  const lines: string[] = [];
  for await (const file of files) {
    // Read from the open file proven inside the working directory (a folder swapped for a link meanwhile is skipped).
    const bytes = await readInsideOrNot(cwd, file);
    if (bytes === undefined || bytes.length > MAX_FILE_BYTES || looksBinary(bytes)) continue;
    const shown = displayPath(cwd, file);
    const text = bytes.toString('utf8').split('\n');
    for (let i = 0; i < text.length; i++) {
      const line = text[i]!;
      if (!regex.test(line)) continue;
      if (lines.length >= query.max) return { lines, more: true };
      if (query.filesOnly) {
        lines.push(shown);
        break;
      }
      lines.push(`${shown}:${i + 1}:${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`);
    }
  }
  return { lines, more: false };
}

async function readInsideOrNot(cwd: string, file: string): Promise<Buffer | undefined> {
  const handle = await openInside(cwd, file).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

async function* walkAbsolute(root: string, filter: (rel: string) => boolean): AsyncGenerator<string> {
  for await (const rel of walkFiles(root)) if (filter(rel)) yield join(root, rel);
}
