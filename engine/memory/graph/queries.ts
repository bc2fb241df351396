/** Questions to the code graph: by name, best-effort (names are matched, not types). */
import type { Database } from '../database.js';

export interface SymbolRow {
  name: string;
  kind: string;
  parent?: string;
  file: string;
  startLine: number;
  endLine: number;
  signature: string;
}

export interface RefRow {
  name: string;
  file: string;
  line: number;
  kind: 'call' | 'ref';
  caller?: string;
}

const LIMIT = 500;

function symbolRow(r: {
  name: string;
  kind: string;
  parent: string | null;
  path: string;
  start_line: number;
  end_line: number;
  signature: string;
}): SymbolRow {
  return {
    name: r.name,
    kind: r.kind,
    ...(r.parent === null ? {} : { parent: r.parent }),
    file: r.path,
    startLine: r.start_line,
    endLine: r.end_line,
    signature: r.signature,
  };
}

/** Where `name` is defined (`Class.method` narrows to a parent). */
export function findSymbol(db: Database, name: string): SymbolRow[] {
  const [parent, member] = name.includes('.') ? name.split('.', 2) : [undefined, name];
  return (
    db
      .prepare(
        `SELECT s.*, f.path FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name = ? AND (? IS NULL OR s.parent = ?) ORDER BY f.is_test, f.path, s.start_line LIMIT ${LIMIT}`,
      )
      .all(member, parent ?? null, parent ?? null) as Parameters<typeof symbolRow>[0][]
  ).map(symbolRow);
}

/** Every place `name` is called or referenced. */
export function findRefs(db: Database, name: string, kind?: 'call'): RefRow[] {
  return (
    db
      .prepare(
        `SELECT r.name, r.line, r.kind, r.caller, f.path FROM refs r JOIN files f ON f.id = r.file_id
         WHERE r.name = ? AND (? IS NULL OR r.kind = ?) ORDER BY f.path, r.line LIMIT ${LIMIT}`,
      )
      .all(name, kind ?? null, kind ?? null) as Array<{
      name: string;
      line: number;
      kind: 'call' | 'ref';
      caller: string | null;
      path: string;
    }>
  ).map((r) => ({
    name: r.name,
    file: r.path,
    line: r.line,
    kind: r.kind,
    ...(r.caller === null ? {} : { caller: r.caller }),
  }));
}

/** The definitions that call `name`: one row per calling definition and file. */
export function callers(db: Database, name: string): Array<{ caller: string; file: string; lines: number[] }> {
  const byCaller = new Map<string, { caller: string; file: string; lines: number[] }>();
  for (const ref of findRefs(db, name, 'call')) {
    const caller = ref.caller ?? '(top level)';
    const key = `${ref.file}\0${caller}`;
    const entry = byCaller.get(key) ?? { caller, file: ref.file, lines: [] };
    entry.lines.push(ref.line);
    byCaller.set(key, entry);
  }
  return [...byCaller.values()];
}

/** What the definitions named `name` call, by name, with where each callee is defined when known. */
export function callees(
  db: Database,
  name: string,
): Array<{ name: string; line: number; file: string; definedIn: string[] }> {
  const rows = db
    .prepare(
      `SELECT DISTINCT r.name, r.line, f.path FROM symbols s JOIN files f ON f.id = s.file_id
       JOIN refs r ON r.file_id = s.file_id AND r.line BETWEEN s.start_line AND s.end_line AND r.kind = 'call' AND r.caller = s.name
       WHERE s.name = ? ORDER BY f.path, r.line LIMIT ${LIMIT}`,
    )
    .all(name) as Array<{ name: string; line: number; path: string }>;
  const where = db.prepare(
    'SELECT DISTINCT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? ORDER BY f.path LIMIT 5',
  );
  return rows.map((r) => ({
    name: r.name,
    line: r.line,
    file: r.path,
    definedIn: (where.all(r.name) as Array<{ path: string }>).map((x) => x.path),
  }));
}

/** A file's imports (resolved to a repository file when cheap) and the files that import it. */
export function imports(
  db: Database,
  file: string,
): { imports: Array<{ spec: string; target?: string; line: number }>; importedBy: string[] } {
  const own = db
    .prepare(
      'SELECT i.spec, i.target, i.line FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ? ORDER BY i.line',
    )
    .all(file) as Array<{ spec: string; target: string | null; line: number }>;
  const by = db
    .prepare(
      'SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target = ? ORDER BY f.path',
    )
    .all(file) as Array<{ path: string }>;
  return {
    imports: own.map((i) => ({ spec: i.spec, ...(i.target === null ? {} : { target: i.target }), line: i.line })),
    importedBy: by.map((r) => r.path),
  };
}

/**
 * The test files that exercise a file or a symbol: for a file, the tests that import it or call
 * what it defines; for a symbol, the tests that call or reference it, or import its file.
 */
export function testsFor(db: Database, target: string): Array<{ file: string; why: string }> {
  const isFile = db.prepare('SELECT 1 FROM files WHERE path = ?').get(target) !== undefined;
  const found = new Map<string, string>();
  const add = (rows: Array<{ path: string }>, why: string) => {
    for (const r of rows) if (!found.has(r.path)) found.set(r.path, why);
  };
  const files = isFile
    ? [target]
    : (
        db
          .prepare('SELECT DISTINCT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ?')
          .all(target) as Array<{ path: string }>
      ).map((r) => r.path);
  const importers = db.prepare(
    'SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target = ? AND f.is_test = 1',
  );
  for (const file of files) add(importers.all(file) as Array<{ path: string }>, `imports ${file}`);
  const names = isFile
    ? (
        db
          .prepare(
            'SELECT DISTINCT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.parent IS NULL',
          )
          .all(target) as Array<{ name: string }>
      ).map((r) => r.name)
    : [target];
  const users = db.prepare(
    'SELECT DISTINCT f.path FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ? AND f.is_test = 1',
  );
  for (const name of names.slice(0, 200)) add(users.all(name) as Array<{ path: string }>, `uses ${name}`);
  if (isFile) found.delete(target);
  return [...found.entries()].map(([file, why]) => ({ file, why })).sort((a, b) => a.file.localeCompare(b.file));
}

/** A file's definitions in order. */
export function outline(db: Database, file: string): SymbolRow[] {
  return (
    db
      .prepare(
        'SELECT s.*, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.start_line',
      )
      .all(file) as Parameters<typeof symbolRow>[0][]
  ).map(symbolRow);
}
