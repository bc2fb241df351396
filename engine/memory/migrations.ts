/**
 * The memory database's schema, as numbered migrations. `PRAGMA user_version` holds the number
 * applied; each migration runs in its own transaction, so a database is always at one version.
 * A migration is never edited once released: a change is a new one at the end.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the decision store.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE decisions (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('neo', 'agent')),
    run_id TEXT,
    step TEXT,
    persona TEXT,
    backend TEXT,
    model TEXT,
    brief TEXT NOT NULL DEFAULT '',
    verdict TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    diff TEXT NOT NULL DEFAULT '',
    symbols TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX decisions_run ON decisions (run_id);
  CREATE INDEX decisions_at ON decisions (at);
  CREATE TABLE decision_files (
    decision_id INTEGER NOT NULL REFERENCES decisions (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    PRIMARY KEY (decision_id, path)
  ) WITHOUT ROWID;
  CREATE INDEX decision_files_path ON decision_files (path);
  CREATE VIRTUAL TABLE decisions_fts USING fts5 (
    brief, evidence, reason, diff, files, symbols,
    tokenize = "unicode61 tokenchars '_'"
  );
  `,
  // 2: the code graph.
  `
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    lang TEXT NOT NULL,
    hash TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    is_test INTEGER NOT NULL
  );
  CREATE TABLE symbols (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    parent TEXT,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature TEXT NOT NULL
  );
  CREATE INDEX symbols_name ON symbols (name);
  CREATE INDEX symbols_file ON symbols (file_id);
  CREATE TABLE refs (
    file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    caller TEXT
  );
  CREATE INDEX refs_name ON refs (name);
  CREATE INDEX refs_file ON refs (file_id);
  CREATE TABLE imports (
    file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    spec TEXT NOT NULL,
    target TEXT,
    line INTEGER NOT NULL
  );
  CREATE INDEX imports_file ON imports (file_id);
  CREATE INDEX imports_target ON imports (target);
  CREATE TABLE file_edges (src INTEGER NOT NULL, dst INTEGER NOT NULL, w REAL NOT NULL);
  CREATE TABLE name_uses (name TEXT PRIMARY KEY, uses INTEGER NOT NULL) WITHOUT ROWID;
  `,
  // 3: a decision's attempt, and its occurrence: what makes neo's record of one moment of a step
  // unique, so a resumed execution that meets the same moment again writes nothing new. And Go and
  // Rust files parsed again, for their imports' new resolution (an impossible size forces it).
  `
  ALTER TABLE decisions ADD COLUMN attempt INTEGER;
  ALTER TABLE decisions ADD COLUMN occurrence TEXT;
  CREATE UNIQUE INDEX decisions_once ON decisions (run_id, step, occurrence) WHERE occurrence IS NOT NULL;
  UPDATE files SET size = -1 WHERE lang IN ('go', 'rust');
  `,
];
