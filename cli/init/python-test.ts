/**
 * A Python project's test command, run by the project's own interpreter (its venv's when it has
 * one: neither PATH nor an activated venv reaches a sandboxed gate). The project's own word
 * first — tox's `[testenv] commands` — then pytest where the project names it or has test files,
 * else the standard unittest runner.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface PythonTest {
  test: string;
  testFrom: string;
}

export async function pythonTestCommand(root: string, python: string, tracked: readonly string[]): Promise<PythonTest> {
  const read = (file: string) => readFile(join(root, file), 'utf8').catch(() => '');
  const tox = toxCommand(await read('tox.ini'), python);
  if (tox !== undefined) return tox;
  const texts = await Promise.all(
    ['pyproject.toml', 'setup.cfg', 'requirements-dev.txt', 'requirements.txt'].map((file) => read(file)),
  );
  const named = texts.some((text) => /\bpytest\b/.test(text));
  const conftest = tracked.some((file) => /(^|\/)(conftest\.py|pytest\.ini)$/.test(file));
  if (named || conftest) return { test: `${python} -m pytest -q`, testFrom: 'pytest, named in the project' };
  // pytest finds both `test_*.py` and `*_test.py`, and runs unittest's cases too; `python -m
  // unittest` finds only `test*.py`, and passes having run none (before Python 3.12).
  if (tracked.some((file) => /(^|\/)(test_[^/]*|[^/]+_test)\.py$/.test(file)))
    return { test: `${python} -m pytest -q`, testFrom: 'pytest, for the test files found' };
  return { test: `${python} -m unittest`, testFrom: 'no pytest named: the standard unittest runner' };
}

/** A word the shell reads as itself, or as a glob it expands (quoted below). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./*?[\]-]+$/;
/** A glob the tox.ini already quotes, as tox reads it: the same word. */
const QUOTED_GLOB = /^'[A-Za-z0-9_@%+=:,./*?[\]-]+'$/;

/** The first command of tox.ini's `[testenv]`, when it runs Python or pytest and needs no tox substitution but `{posargs}`. */
function toxCommand(text: string, python: string): PythonTest | undefined {
  const section = /^\[testenv\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const first = /^commands\s*=[ \t]*(.*(?:\n[ \t]+.*)*)/m
    .exec(section)?.[1]
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '');
  if (first === undefined) return undefined;
  const words = first
    .replace(/\{posargs[^}]*\}/g, '')
    .trim()
    .split(/\s+/);
  // tox runs the command without a shell; the gate runs it with one. Only a plain argv is taken
  // (a glob quoted so the shell leaves it to the runner, as tox does): `;`, `$(…)`, a quote or a
  // redirection from the repository's tox.ini would be shell code in the gate.
  if (!words.every((word) => PLAIN_WORD.test(word) || QUOTED_GLOB.test(word))) return undefined;
  const quoted = words.map((word) => (/[*?[]/.test(word) && !QUOTED_GLOB.test(word) ? `'${word}'` : word));
  const [head, ...rest] = quoted;
  const command =
    head === 'python' || head === 'python3'
      ? [python, ...rest]
      : head === 'pytest' || head === 'py.test'
        ? [python, '-m', 'pytest', ...rest]
        : undefined;
  return command === undefined
    ? undefined
    : { test: command.join(' '), testFrom: `tox.ini [testenv] commands: ${first}` };
}
