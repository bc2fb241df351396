/**
 * How neo runs git so that no file an agent can write turns neo's own git call into a command.
 * A repository's config, its `.gitattributes` and its `.git` entry are all data an agent may have
 * written (at full posture, or through a CLI that writes without asking); git reads each of them
 * and several config keys name a program git runs. Every neo git call therefore:
 *
 * - reads no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, no
 *   system attributes) and inherits no `GIT_*` variable from neo's own environment;
 * - overrides (through GIT_CONFIG_COUNT, which wins over any file), every key git 2.39 documents as
 *   running a program that a local command can reach: `core.fsmonitor` (index refresh),
 *   `core.hooksPath` (hooks of commit and checkout), `core.pager`, `core.editor`,
 *   `sequence.editor`, `commit.gpgSign`/`tag.gpgSign` (gpg.program), `gc.auto`/
 *   `maintenance.auto` (a background gc runs the pre-auto-gc hook), and `protocol.allow=never`
 *   (no transport: `core.sshCommand`, `core.gitProxy`, `credential.helper`, `core.askPass`,
 *   remote helpers are never reached);
 * - passes `--no-ext-diff --no-textconv` to every diff-family command (`diff.external`,
 *   `diff.<driver>.command`, `diff.<driver>.textconv`);
 * - blanks every `filter.<driver>.{clean,smudge,process}` the repository's config defines
 *   ({@link filterOverrides}): attributes pick drivers by name, so they are read and neutralised
 *   per repository. (Keys only fetch, push, merge or rebase read — `merge.<driver>.driver`,
 *   `core.alternateRefsCommand`, `uploadpack.packObjectsHook` — are unreachable from the
 *   commands neo runs.)
 *
 * A consequence: filters configured only globally (Git LFS's usual setup) do not apply to neo's
 * calls, so LFS files are seen as their pointer files.
 */

import { ownProgramsPath } from '../util/own-programs.js';

/** Config overrides for every call, as [key, value]. */
export const HARDENING_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['protocol.allow', 'never'],
  ['submodule.recurse', 'false'],
  // Output neo parses or hands on as a patch: never quoted, coloured or prefixed differently.
  ['core.quotepath', 'off'],
  ['color.ui', 'false'],
  ['diff.noprefix', 'false'],
  ['diff.mnemonicPrefix', 'false'],
  ['diff.relative', 'false'],
];

/** Subcommands that produce diffs, which get `--no-ext-diff --no-textconv`. */
export const DIFF_COMMANDS: ReadonlySet<string> = new Set([
  'diff',
  'diff-tree',
  'diff-index',
  'diff-files',
  'log',
  'show',
]);

/**
 * The environment of a git call: PATH and the locale, the overrides (through GIT_CONFIG_COUNT,
 * which wins over every config file and needs no quoting), plus what the caller sets. Nothing
 * from neo's own environment that git reads (GIT_DIR, GIT_INDEX_FILE, GIT_EXTERNAL_DIFF,
 * GIT_SSH_COMMAND, GIT_CONFIG_PARAMETERS, …) leaks in.
 */
export function gitEnvironment(
  overrides: ReadonlyArray<readonly [string, string]>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    // git, and whatever git starts, never from a folder a confined step writes (util/own-programs.ts).
    PATH: ownProgramsPath() || '/usr/bin:/bin',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    GIT_CONFIG_COUNT: String(HARDENING_CONFIG.length + overrides.length),
  };
  [...HARDENING_CONFIG, ...overrides].forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return { ...env, ...extra };
}

/** The config keys a repository's own config is listed for (filter drivers and includes). */
export const DRIVER_KEYS = '^(filter|include|includeif)\\.';

/**
 * Overrides that blank the filter drivers a `git config -z --get-regexp` listing names: its
 * records are `key\nvalue\0`, keys `filter.<driver>.<var>` (a driver name may hold dots).
 */
export function filterOverrides(listing: string): Array<[string, string]> {
  const drivers = new Set<string>();
  for (const record of listing.split('\0')) {
    const key = record.split('\n', 1)[0]!;
    if (!key.startsWith('filter.')) continue;
    const last = key.lastIndexOf('.');
    if (last > 'filter.'.length) drivers.add(key.slice('filter.'.length, last));
  }
  return [...drivers].flatMap((driver): Array<[string, string]> => [
    [`filter.${driver}.clean`, ''],
    [`filter.${driver}.smudge`, ''],
    [`filter.${driver}.process`, ''],
    [`filter.${driver}.required`, 'false'],
  ]);
}

/** Whether a config listing includes other files (then it is read afresh at every call). */
export function hasIncludes(listing: string): boolean {
  return listing.split('\0').some((record) => /^include(if\..*)?\.path\n/.test(record));
}
