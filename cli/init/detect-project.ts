/**
 * What `neo init` learns of a repository before it writes a flow: its ecosystem and package
 * manager (by manifest and lockfile), its test command, where its tests are, and whether its
 * dependencies are installed in the checkout (a run's worktree is lent them:
 * `workspace.dependencies: reuse`). Read from the files alone; nothing is run.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { globMatch, PROTECT_PRESETS } from '../../engine/posture/index.js';
import { pathExists } from '../../engine/util/path-exists.js';
import { ECOSYSTEMS, NAMED_TEST_GLOBS, TEST_GLOBS, type Ecosystem } from './ecosystems.js';
import { pythonTestCommand } from './python-test.js';

export type { Ecosystem } from './ecosystems.js';

/** A repository as `neo init` scaffolds for it. */
export interface ProjectShape {
  ecosystem: Ecosystem | undefined;
  /** The package manager or tool, as the user would name it (`npm`, `pnpm`, `uv`, `pip`, `go`, `cargo`). */
  manager: string | undefined;
  /** The gate: the project's own test command, or a placeholder when none was found. */
  test: string;
  /** Where `test` came from, or why it is a placeholder. */
  testFrom: string;
  /** Whether `test` is the project's (false: a guess the user must check). */
  testFound: boolean;
  /** The `protect:` list: the ecosystem's preset, then the test globs that match tracked files. */
  protect: string[];
  /** The command that installs the dependencies in the checkout (node, python), when it has some. */
  install: string | undefined;
  /** npm's `pretest`/`posttest` scripts, which `npm test` runs in the gate too (`pretest: npm run lint`). */
  testHooks?: string[];
  /** The dependency folder found at the top of the checkout (`node_modules`, `.venv`), ignored by git or not. */
  installedHere?: string;
  /** How the gate gets the dependencies offline, where it is not by lending installed folders (go, rust: workspace/toolchains.ts). */
  offline?: string;
  /** The preset's lockfile left out of `protect:`: not committed, and written by the test command itself (cargo's). */
  unprotectedLock?: string;
}

/** npm's own placeholder for a package without tests (`npm init`'s default). */
const NO_TEST_SCRIPT = /no test specified/;

/** Detects the shape of the repository at `root`, whose tracked files are `tracked`. */
export async function detectProject(root: string, tracked: readonly string[]): Promise<ProjectShape> {
  const has = (file: string) => pathExists(join(root, file));
  const ecosystem = await firstEcosystem(has);
  const unprotectedLock = ecosystem === 'rust' && !tracked.some(isCargoLock) ? 'Cargo.lock' : undefined;
  const protect = protectList(ecosystem, tracked, unprotectedLock);
  switch (ecosystem) {
    case 'node':
      return { ecosystem, protect, ...(await nodeShape(root, has)) };
    case 'python':
      return { ecosystem, protect, ...(await pythonShape(root, has, tracked)) };
    case 'go':
      return {
        ecosystem,
        protect,
        manager: 'go',
        test: 'go test ./...',
        testFrom: 'go.mod',
        testFound: true,
        install: undefined,
        offline:
          'the module cache (GOMODCACHE) and a Go install under your home are lent read-only to the sandbox, offline (GOPROXY=off): run `go mod download` in your checkout when a dependency changes',
      };
    case 'rust':
      return {
        ecosystem,
        protect,
        ...(unprotectedLock === undefined ? {} : { unprotectedLock }),
        manager: 'cargo',
        test: 'cargo test --offline',
        testFrom: 'Cargo.toml',
        testFound: true,
        install: undefined,
        offline:
          "~/.cargo's registry and git checkouts and ~/.rustup's toolchains are lent read-only to the sandbox, offline: run `cargo fetch` in your checkout when a dependency changes",
      };
    default:
      return {
        ecosystem,
        protect,
        manager: undefined,
        test: 'make test',
        testFrom: 'no package.json, pyproject.toml, requirements.txt, go.mod or Cargo.toml found',
        testFound: false,
        install: undefined,
      };
  }
}

async function firstEcosystem(has: (file: string) => Promise<boolean>): Promise<Ecosystem | undefined> {
  for (const [name, info] of Object.entries(ECOSYSTEMS) as Array<[Ecosystem, (typeof ECOSYSTEMS)[Ecosystem]]>) {
    for (const marker of info.markers) if (await has(marker)) return name;
  }
  return undefined;
}

/**
 * The preset, then each of the ecosystem's test globs that matches a tracked file (all of them
 * when none does), then each test-file name glob that matches one.
 */
const isCargoLock = (file: string) => file === 'Cargo.lock' || file.endsWith('/Cargo.lock');

/**
 * The ecosystem's preset, then the test globs that match tracked files. A lockfile the test
 * command writes when it is missing (cargo's, in a library that does not commit one) is left out
 * of the preset, spelled out entry by entry: the agent's own test run would write it, and every
 * step would fail as a protected edit whatever it did.
 */
function protectList(ecosystem: Ecosystem | undefined, tracked: readonly string[], unprotectedLock?: string): string[] {
  const globs = ecosystem === undefined ? TEST_GLOBS.any : TEST_GLOBS[ecosystem];
  const matches = (glob: string) => tracked.some((file) => globMatch(glob, file));
  const matching = globs.filter(matches);
  const named = (ecosystem === undefined ? [] : (NAMED_TEST_GLOBS[ecosystem] ?? [])).filter(matches);
  const preset =
    ecosystem === undefined
      ? []
      : unprotectedLock === undefined
        ? [`@${ecosystem}`]
        : (PROTECT_PRESETS[ecosystem] ?? []).filter((glob) => glob !== `**/${unprotectedLock}`);
  return [...preset, ...(matching.length > 0 || named.length > 0 ? matching : globs), ...named];
}

async function nodeShape(root: string, has: (file: string) => Promise<boolean>) {
  const manager = (await has('pnpm-lock.yaml'))
    ? 'pnpm'
    : (await has('yarn.lock'))
      ? 'yarn'
      : (await has('bun.lock')) || (await has('bun.lockb'))
        ? 'bun'
        : 'npm';
  const manifest = await readJson(join(root, 'package.json'));
  const scripts = asRecord(manifest?.scripts);
  const script = typeof scripts?.test === 'string' ? scripts.test : undefined;
  const testFound = script !== undefined && !NO_TEST_SCRIPT.test(script);
  const hooks = ['pretest', 'posttest'].flatMap((hook) =>
    typeof scripts?.[hook] === 'string' ? [`${hook}: ${oneLine(scripts[hook] as string)}`] : [],
  );
  const deps = ['dependencies', 'devDependencies', 'optionalDependencies'].some(
    (key) => Object.keys(asRecord(manifest?.[key]) ?? {}).length > 0,
  );
  const install = {
    npm: (await has('package-lock.json')) ? 'npm ci' : 'npm install',
    pnpm: 'pnpm install --frozen-lockfile',
    yarn: 'yarn install --frozen-lockfile',
    bun: 'bun install --frozen-lockfile',
  }[manager];
  return {
    manager,
    test: manager === 'npm' ? 'npm test' : `${manager} test`,
    testFrom: testFound ? `package.json scripts.test: ${oneLine(script!)}` : 'package.json has no "test" script',
    testFound,
    install: deps ? install : undefined,
    ...(hooks.length > 0 && manager === 'npm' ? { testHooks: hooks } : {}),
    ...((await has('node_modules')) ? { installedHere: 'node_modules' } : {}),
  };
}

async function pythonShape(root: string, has: (file: string) => Promise<boolean>, tracked: readonly string[]) {
  const manager = (await has('uv.lock')) ? 'uv' : (await has('poetry.lock')) ? 'poetry' : 'pip';
  const venv = await venvOf(root);
  // The venv's own interpreter: a worktree is lent the checkout's venv at the same place, and
  // neither PATH nor an activated venv reaches a sandboxed gate.
  const python = venv === undefined ? 'python3' : `${venv}/bin/python`;
  const found = await pythonTestCommand(root, python, tracked);
  // A src layout's package is importable only installed: without a venv that holds it, the tests
  // import whatever copy python3 has (pytest's own iniconfig) or none, never the agent's work.
  const fromSrc =
    venv === undefined && found.test.startsWith(`${python} -m `) && tracked.some((file) => SRC_PACKAGE.test(file));
  const test = fromSrc ? `PYTHONPATH=src ${found.test}` : found.test;
  const testFrom = fromSrc
    ? `${found.testFrom}; src layout without a virtualenv: the package is imported from src/`
    : found.testFrom;
  const pytest = test.includes('pytest');
  const requirements = (await has('requirements.txt')) ? ' -r requirements.txt' : '';
  const editable = (await has('pyproject.toml')) || (await has('setup.py')) ? ' -e .' : '';
  const install = {
    uv: 'uv sync',
    poetry: 'poetry config virtualenvs.in-project true && poetry install',
    pip: `python3 -m venv .venv && .venv/bin/pip install${requirements}${editable}${pytest ? ' pytest' : ''}`,
  }[manager];
  return {
    manager,
    test,
    testFrom,
    testFound: true,
    install,
    ...(venv === undefined ? {} : { installedHere: venv }),
  };
}

/** A package of a src layout (`src/<name>/__init__.py`). */
const SRC_PACKAGE = /^src\/[A-Za-z_][A-Za-z0-9_]*\/__init__\.py$/;

/** The repository's top-level virtualenv (`.venv`, `venv`, or any folder with a `pyvenv.cfg`). */
async function venvOf(root: string): Promise<string | undefined> {
  for (const name of ['.venv', 'venv', 'env', '.env'])
    if (await pathExists(join(root, name, 'pyvenv.cfg'))) return name;
  return undefined;
}

/** A script as one short line (it is quoted in a YAML comment). */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    return asRecord(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    return undefined;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
