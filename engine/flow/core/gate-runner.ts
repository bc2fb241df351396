/**
 * Which test runner a gate's command runs, read from the command the plan's author wrote (never
 * from what the gate printed): a recognised runner's gate passes only on the runner's own
 * summary (runner-report.ts). A package manager's script (`npm test`) is resolved by the caller
 * from the gate tree's `package.json` (`resolveScripts`). Anything else — a command with shell
 * logic beyond `&&`, a redirection, a reporter of the user's choosing, an unknown program —
 * keeps exit-code semantics. Pure.
 */

/** A runner whose summary the gate reads. */
export type RunnerKind = 'pytest' | 'unittest' | 'node-test' | 'vitest' | 'jest' | 'cargo-test' | 'go-test';

/** One recognised part of a gate's command. */
export type RunnerPart =
  | {
      kind: RunnerKind;
      /** Told to print no summary (`pytest -qq`): judged by its exit code, as an unrecognised command. */
      silent?: true;
    }
  | {
      /** A package manager's script, with the arguments the manager appends to it. */
      script: string;
      args: string[];
      /** Without such a script, the manager runs the binary of that name (pnpm, yarn). */
      orBin?: true;
    };

/** Shell syntax that makes a runner's summary no proof of the whole command (or hides it). */
const SHELL_LOGIC = /[;|`<>&()\n]|\$\(/;
const PYTHON = /^python(\d+(\.\d+)*)?$/;
const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const NPM_ELSEWHERE = /^(--prefix|-C|--workspaces?|-w|-ws|--ws|--include-workspace-root)(=|$)/;
/** `uv run pytest`, `poetry run pytest`: the tool runs the rest as it is. */
const RUN_WRAPPERS = new Set(['uv', 'poetry', 'pdm', 'pipenv', 'hatch', 'rye']);

/**
 * The runners a gate's command runs, one per `&&` part that is one; none when the command has
 * shell logic besides `&&` (a `||`, `;` or pipe could hide or skip a runner's run, a redirection
 * its summary).
 */
export function gateRunnerParts(command: string): RunnerPart[] {
  const plain = command.replaceAll('2>&1', ' ').replaceAll('&&', '\n&&');
  if (SHELL_LOGIC.test(plain.replaceAll('\n&&', ' '))) return [];
  // After a `cd`, a package script is another folder's: the gate's `package.json` does not name it.
  let moved = false;
  return plain
    .split('\n&&')
    .map((segment) => segment.trim().split(/\s+/).filter(Boolean))
    .flatMap((words) => {
      if (words[0] === 'cd' || words[0] === 'pushd') moved = true;
      const part = partOf(words);
      return part === undefined || (moved && 'script' in part) ? [] : [part];
    });
}

/**
 * The runners, with each package script replaced by the runners of its command (one level: a
 * script that runs another script is left out), from the `scripts` of the gate's `package.json`.
 */
export function resolveScripts(parts: readonly RunnerPart[], scripts: Readonly<Record<string, unknown>>): RunnerPart[] {
  return parts.flatMap((part) => {
    if (!('script' in part)) return [part];
    const text = Object.hasOwn(scripts, part.script) ? scripts[part.script] : part.orBin ? part.script : undefined;
    if (typeof text !== 'string') return [];
    return gateRunnerParts([text, ...part.args].join(' ')).filter((inner) => !('script' in inner));
  });
}

/** Whether any part is a package script (the caller then reads `package.json`). */
export function needsScripts(parts: readonly RunnerPart[]): boolean {
  return parts.some((part) => 'script' in part);
}

function partOf(words: string[]): RunnerPart | undefined {
  let rest = words;
  while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0]!)) rest = rest.slice(1);
  for (;;) {
    const [head, next] = rest;
    if (head === 'env' || head === 'exec' || head === 'command') rest = rest.slice(1);
    else if (head === 'npx' || head === 'bunx') rest = dropFlags(rest.slice(1));
    else if ((head === 'pnpm' || head === 'yarn') && next === 'exec') rest = rest.slice(2);
    else if (head !== undefined && RUN_WRAPPERS.has(head) && next === 'run') rest = rest.slice(2);
    else break;
  }
  const [head, ...args] = rest;
  if (head === undefined) return undefined;
  const program = head.slice(head.lastIndexOf('/') + 1);
  if (MANAGERS.has(program)) return scriptOf(program, args);
  if (PYTHON.test(program)) return pythonModule(args);
  if (program === 'pytest' || program === 'py.test') return pytestPart(args);
  if (program === 'node')
    return args.includes('--test') && !hasFlag(args, '--test-reporter') ? { kind: 'node-test' } : undefined;
  if (program === 'vitest') return hasFlag(args, '--reporter') ? undefined : { kind: 'vitest' };
  if (program === 'jest') return hasFlag(args, '--reporter') || args.includes('--json') ? undefined : { kind: 'jest' };
  if (program === 'cargo') return dropToolchain(args)[0] === 'test' ? { kind: 'cargo-test' } : undefined;
  // Without `-v` go test prints one `ok` per package and no count: a test binary that exited 0
  // in an `init` reads the same as a pass, so only the verbose run is judged by its report.
  if (program === 'go' && args[0] === 'test')
    return args.some((word) => word === '-v' || word === '-v=true' || word === '-test.v')
      ? { kind: 'go-test' }
      : undefined;
  return undefined;
}

/** `python -m pytest …`, `python -m unittest [discover …]`. */
function pythonModule(args: string[]): RunnerPart | undefined {
  const at = args.indexOf('-m');
  const module = at < 0 ? undefined : args[at + 1];
  if (module === 'pytest' || module === 'py.test') return pytestPart(args.slice(at + 2));
  return module === 'unittest' ? { kind: 'unittest' } : undefined;
}

/**
 * `npm test`, `npm t`, `npm run test`; `pnpm test`, `yarn test` and their `run`; `bun run test`
 * (`bun test` is bun's own runner). pnpm and yarn run a script by its bare name, or else the
 * binary of that name (`pnpm vitest run`).
 */
function scriptOf(manager: string, args: string[]): RunnerPart | undefined {
  const explicit = args[0] === 'run' || args[0] === 'run-script';
  const rest = explicit ? args.slice(1) : args;
  if (!explicit && (manager === 'bun' || (manager === 'npm' && rest[0] !== 'test' && rest[0] !== 't')))
    return undefined;
  const [name, ...more] = rest;
  if (name === undefined || name.startsWith('-')) return undefined;
  const script = name === 't' && manager === 'npm' && !explicit ? 'test' : name;
  // npm passes what follows `--` to the script; pnpm and yarn pass everything after its name.
  const at = more.indexOf('--');
  // npm's own options that run another package's script than the gate folder's.
  if (manager === 'npm' && (at < 0 ? more : more.slice(0, at)).some((word) => NPM_ELSEWHERE.test(word)))
    return undefined;
  const passed = manager === 'npm' ? (at < 0 ? [] : more.slice(at + 1)) : more.filter((word) => word !== '--');
  return manager === 'pnpm' || manager === 'yarn' ? { script, args: passed, orBin: true } : { script, args: passed };
}

/** pytest prints its summary line unless quieted twice (`-qq`, `-q -q`) or without its terminal reporter. */
function pytestPart(args: readonly string[]): RunnerPart {
  const quiet = args.reduce((n, word) => n + (word === '--quiet' ? 1 : /^-q+$/.test(word) ? word.length - 1 : 0), 0);
  const silent = quiet >= 2 || args.some((word) => word === 'no:terminal' || word === '-pno:terminal');
  return silent ? { kind: 'pytest', silent: true } : { kind: 'pytest' };
}

function dropFlags(words: string[]): string[] {
  let rest = words;
  while (rest[0]?.startsWith('-')) rest = rest.slice(1);
  return rest;
}

function dropToolchain(words: string[]): string[] {
  return words[0]?.startsWith('+') ? words.slice(1) : words;
}

function hasFlag(words: readonly string[], flag: string): boolean {
  return words.some((word) => word === flag || word.startsWith(`${flag}=`));
}
