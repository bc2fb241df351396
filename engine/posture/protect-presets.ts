/**
 * `protect:` presets: `@node`, `@python`, `@go`, `@rust` name what an ecosystem's test runner
 * reads besides the tests — manifests, lockfiles, package-manager and runner configuration, the
 * files a runner loads before any test (`conftest.py`, `build.rs`) — so that protecting the tests
 * alone cannot be undone by rewriting `scripts.test`, adding an `.npmrc` hook or a `conftest.py`.
 * Each entry is a glob relative to the workspace, at any depth (a monorepo has many manifests).
 * Installed dependencies (`node_modules`, a virtualenv) are not listed: the gate uses the ones
 * present at the step's base, read-only. Pure: data and a lookup.
 */

/** The presets, by name (without the `@`). */
export const PROTECT_PRESETS: Readonly<Record<string, readonly string[]>> = {
  node: [
    '**/package.json',
    '**/package-lock.json',
    '**/npm-shrinkwrap.json',
    '**/yarn.lock',
    '**/pnpm-lock.yaml',
    '**/pnpm-workspace.yaml',
    '**/bun.lockb',
    '**/bun.lock',
    '**/bunfig.toml',
    '**/.npmrc',
    '**/.yarnrc',
    '**/.yarnrc.yml',
    '**/.yarn/releases/**',
    '**/.yarn/plugins/**',
    '**/.pnp.cjs',
    '**/.pnp.loader.mjs',
    '**/.pnpmfile.cjs',
    '**/.nvmrc',
    '**/.node-version',
    '**/jest.config.*',
    '**/jest.setup.*',
    '**/vitest.config.*',
    '**/vitest.workspace.*',
    '**/vite.config.*',
    '**/.mocharc*',
    '**/ava.config.*',
    '**/playwright.config.*',
    '**/karma.conf.*',
    '**/.c8rc*',
    '**/.nycrc*',
    '**/babel.config.*',
    '**/.babelrc*',
    '**/.swcrc',
    '**/tsconfig*.json',
    '**/jsconfig*.json',
  ],
  python: [
    '**/pyproject.toml',
    '**/setup.py',
    '**/setup.cfg',
    '**/tox.ini',
    '**/pytest.ini',
    '**/.pytest.ini',
    // pytest 9 reads these first: a new one outranks a protected pyproject.toml's settings.
    '**/pytest.toml',
    '**/.pytest.toml',
    '**/conftest.py',
    '**/noxfile.py',
    '**/requirements*.txt',
    '**/requirements/*.txt',
    '**/constraints*.txt',
    '**/Pipfile',
    '**/Pipfile.lock',
    '**/poetry.lock',
    '**/uv.lock',
    '**/pdm.lock',
    '**/.python-version',
    '**/.coveragerc',
    '**/sitecustomize.py',
    '**/usercustomize.py',
  ],
  go: ['**/go.mod', '**/go.sum', '**/go.work', '**/go.work.sum'],
  rust: [
    '**/Cargo.toml',
    '**/Cargo.lock',
    '**/build.rs',
    '**/.cargo/config',
    '**/.cargo/config.toml',
    '**/rust-toolchain',
    '**/rust-toolchain.toml',
  ],
};

/** The preset names as written in a `protect:` list. */
export const PROTECT_PRESET_NAMES: readonly string[] = Object.keys(PROTECT_PRESETS).map((name) => `@${name}`);

/** Whether a `protect:` entry names a preset (`@…`) rather than a glob. */
export function isProtectPreset(entry: string): boolean {
  return entry.startsWith('@');
}

/** The globs of a preset entry (`@node`), or undefined for an unknown one. */
export function presetGlobs(entry: string): readonly string[] | undefined {
  return Object.hasOwn(PROTECT_PRESETS, entry.slice(1)) ? PROTECT_PRESETS[entry.slice(1)] : undefined;
}

/**
 * A `protect:` list with each preset replaced by its globs (duplicates dropped, first kept), and
 * the entries that name no preset.
 */
export function expandProtect(entries: readonly string[]): { globs: string[]; unknown: string[] } {
  const globs = new Set<string>();
  const unknown: string[] = [];
  for (const entry of entries) {
    if (!isProtectPreset(entry)) {
      globs.add(entry);
      continue;
    }
    const preset = presetGlobs(entry);
    if (preset === undefined) unknown.push(entry);
    else for (const glob of preset) globs.add(glob);
  }
  return { globs: [...globs], unknown };
}

/**
 * A glob list as a person reads it: the globs of each preset they hold whole shown as the preset
 * (`@node`), in the place of its first glob; the rest as they are. The inverse of
 * {@link expandProtect} for display (`--dry-run`), never for matching.
 */
export function collapseProtect(globs: readonly string[]): string[] {
  const held = new Set(globs);
  const whole = Object.entries(PROTECT_PRESETS).filter(([, list]) => list.every((glob) => held.has(glob)));
  const covered = new Map<string, string>();
  for (const [name, list] of whole) for (const glob of list) if (!covered.has(glob)) covered.set(glob, `@${name}`);
  const out: string[] = [];
  for (const glob of globs) {
    const entry = covered.get(glob) ?? glob;
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
