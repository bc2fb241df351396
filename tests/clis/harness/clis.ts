import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CLI_CACHE = process.env.NEO_CLI_CACHE ?? join(ROOT, '.neo-cache', 'clis');

/** One CLI as scripts/install-clis.mjs left it. */
export type CliInstall =
  | { status: 'installed'; bin: string; version: string; package: string }
  | { status: 'skipped'; reason: string; package?: string };

/** The install manifest entry for a CLI; a missing manifest or entry is a skip with the reason. */
export function installedCli(id: string): CliInstall {
  const manifest = join(CLI_CACHE, 'manifest.json');
  if (!existsSync(manifest))
    return {
      status: 'skipped',
      reason: `no ${manifest}: run \`node scripts/install-clis.mjs\` (npm run test:clis does)`,
    };
  const entry = (JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, CliInstall | undefined>)[id];
  if (entry === undefined)
    return { status: 'skipped', reason: `${id} was not selected for installation (NEO_CLIS / --only)` };
  if (entry.status === 'installed' && !existsSync(entry.bin))
    return { status: 'skipped', reason: `${entry.bin} is gone; rerun the installer` };
  return entry;
}

/** A loud title for the skipped placeholder test, so the reporter shows why a CLI did not run. */
export function skippedTitle(id: string, install: CliInstall): string {
  return install.status === 'skipped' ? `SKIPPED ${id}: ${install.reason}` : `${id} is installed`;
}

/**
 * Registers a CLI's conformance suite when the CLI is installed; otherwise a single skipped test
 * whose title carries the reason (and a warning at collection time), so a missing CLI is loud.
 */
export function describeCli(
  id: string,
  title: string,
  body: (cli: Extract<CliInstall, { status: 'installed' }>) => void,
  deps: { describe: (name: string, fn: () => void) => void; skip: (name: string) => void },
): void {
  const install = installedCli(id);
  if (install.status === 'installed') {
    deps.describe(`${title} × real ${id} ${install.version}`, () => body(install));
    return;
  }
  console.warn(`\n*** ${skippedTitle(id, install)}\n`);
  deps.describe(`${title} × real ${id}`, () => deps.skip(skippedTitle(id, install)));
}
