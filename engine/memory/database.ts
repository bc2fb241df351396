import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { CONFINED_MEMORY_DIR, memoryDir, repositoryRoot } from './repo-key.js';

export type Database = BetterSqlite3.Database;

const require = createRequire(import.meta.url);

/** How long a write waits for another process's lock before it gives up (a memory write never holds a run up longer). */
export const BUSY_TIMEOUT_MS = 250;

/** An open memory database and the repository it remembers. */
export interface MemoryDb {
  db: Database;
  repoRoot: string;
  file: string;
}

/**
 * Opens (creating it when absent) the memory database of the repository `dir` belongs to:
 * `NEO_HOME/memory/<repo>/memory.db`, in WAL mode (readers never wait for the writer; a
 * `kill -9` loses at most the transaction it interrupted), migrated to the latest version.
 * `better-sqlite3` is required on first use, so commands that never touch memory never load it.
 */
export function openMemory(home: string, dir: string, options: { readonly?: boolean } = {}): MemoryDb {
  const repoRoot = repositoryRoot(dir);
  const folder = memoryDir(home, repoRoot);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, 'memory.db');
  // Created private before SQLite opens it: its -wal and -shm files take the database's mode.
  closeSync(openSync(file, 'a', 0o600));
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const db = new Sqlite(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('repo', ?)").run(repoRoot);
    if (options.readonly === true) db.pragma('query_only = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return { db, repoRoot, file };
}

/**
 * Applies the migrations past the database's `user_version`. Each runs in its own immediate
 * transaction that reads the version again under the write lock, so two processes opening a new
 * database at once never apply one migration twice.
 */
export function migrate(db: Database): number {
  if (db.pragma('user_version', { simple: true }) === MIGRATIONS.length) return MIGRATIONS.length;
  for (;;) {
    const applied = db
      .transaction(() => {
        const current = db.pragma('user_version', { simple: true }) as number;
        if (current > MIGRATIONS.length)
          throw new Error(
            `the memory database is at version ${current}, newer than this neo knows (${MIGRATIONS.length})`,
          );
        if (current === MIGRATIONS.length) return false;
        db.exec(MIGRATIONS[current]!);
        db.pragma(`user_version = ${current + 1}`);
        return true;
      })
      .immediate();
    if (!applied) return MIGRATIONS.length;
  }
}

/**
 * Opens a memory database that this process can only read — the one a sandbox shows at
 * CONFINED_MEMORY_DIR, its folder bound read-only. Nothing is created, migrated or written.
 * While neo holds it open, its `-wal` and `-shm` are there and SQLite reads it live, read-only.
 * When no one does, they are gone (the last close checkpoints everything into the file) and SQLite
 * cannot open a WAL database read-only in a folder it cannot write: then the file, whole as it is,
 * is read into memory with its header's WAL mark cleared (bytes 18–19), a snapshot.
 */
export function openConfinedMemory(folder: string = CONFINED_MEMORY_DIR): MemoryDb {
  const file = join(folder, 'memory.db');
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const repoOf = (db: Database) =>
    (db.prepare("SELECT value FROM meta WHERE key = 'repo'").get() as { value: string } | undefined)?.value;
  let db: Database;
  let repoRoot: string | undefined;
  try {
    db = new Sqlite(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    try {
      repoRoot = repoOf(db);
    } catch (error) {
      db.close();
      throw error;
    }
  } catch {
    const bytes = readFileSync(file);
    if (bytes.length > 100 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
    db = new Sqlite(bytes, { readonly: true });
    repoRoot = repoOf(db);
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== MIGRATIONS.length) {
    db.close();
    throw new Error(`the memory database at ${file} is at version ${version}, this neo reads ${MIGRATIONS.length}`);
  }
  return { db, repoRoot: repoRoot ?? folder, file };
}
