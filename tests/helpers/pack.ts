/**
 * neo as a user gets it: the package `npm pack` makes of this worktree (its built `dist/`),
 * installed into another project with no network. `npm install <tarball> --offline` would need
 * the registry's metadata of every dependency, which npm's cache does not keep for an `npm ci`
 * install; a lockfile naming each dependency's tarball and integrity (taken from neo's own
 * lockfile) lets `npm ci --offline` take them from the cache, where neo's own `npm ci` put them.
 */
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface LockEntry {
  version?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

/** `npm pack` of this worktree into `dir` (scripts skipped: the e2e tests run the built dist/). Returns the tarball. */
export async function packNeo(dir: string): Promise<string> {
  const { stdout } = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: ROOT,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  return join(dir, packed!.filename);
}

/** Installs `tarball` as a dependency of the project in `dir` (which has a package.json), offline. */
export async function installOffline(dir: string, tarball: string): Promise<void> {
  const neoLock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const neoPkg = neoLock.packages['']!;
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const project = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  const spec = `file:${relative(dir, tarball)}`;
  const runtime = Object.entries(neoLock.packages).filter(
    ([path, entry]) => path.startsWith('node_modules/') && !entry.dev,
  );
  const lock = {
    name: project.name,
    version: project.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: project.name, version: project.version, devDependencies: { [manifest.name]: spec } },
      [`node_modules/${manifest.name}`]: {
        version: manifest.version,
        resolved: spec,
        dev: true,
        license: neoPkg.license,
        dependencies: neoPkg.dependencies,
        bin: neoPkg.bin,
        engines: neoPkg.engines,
      },
      ...Object.fromEntries(runtime.map(([path, entry]) => [path, { ...entry, dev: true }])),
    },
  };
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ ...project, devDependencies: { [manifest.name]: spec } }, null, 2),
  );
  await writeFile(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
  await execa('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir });
}
