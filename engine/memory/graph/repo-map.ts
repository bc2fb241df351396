/**
 * A ranked map of the repository, after Aider's: files are nodes, a reference from one file to a
 * name another defines is an edge (weighted down when many files define the name), and
 * personalised PageRank — the random walk restarting at the files a step names or touches and at
 * the definitions of the symbols it names — ranks them. The top files, each with its most referenced definitions' signatures, are fitted
 * to a token budget (about four characters a token).
 */
import type { Database } from '../database.js';

export interface MapOptions {
  /** The budget in tokens. */
  tokens: number;
  /** Repository-relative files the walk restarts at (what the step names or touches). */
  focus?: readonly string[];
  /** Symbols the step names: the files defining them restart the walk too. */
  symbols?: readonly string[];
}

/** The walk's restart weights: what a step names or touches, and (after Aider) its named symbols. */
export interface Focus {
  files?: readonly string[];
  symbols?: readonly string[];
}

const DAMPING = 0.85;
const ITERATIONS = 30;
const CHARS_PER_TOKEN = 4;
const SYMBOLS_PER_FILE = 8;

/** A symbol is a useful focus only where few files define it (a `run` defined in forty says nothing). */
const MAX_SYMBOL_DEFINERS = 5;
/** How much of an edge also flows back, from the definer to the file using it. */
const BACKWARD = 0.5;

/**
 * The files' ranks: personalised PageRank over the reference graph. An edge runs from a file to
 * the file defining what it uses, and half of it back: a named file's neighbours are both what it
 * uses and what uses it (the callers a change there can break). The walk restarts at the focus
 * files and at the files defining the focus symbols (their users follow through the edges); with
 * no focus it restarts anywhere (plain PageRank).
 */
export function rankFiles(db: Database, focus: readonly string[] | Focus = []): Map<number, number> {
  const asked: Focus = Array.isArray(focus) ? { files: focus as readonly string[] } : (focus as Focus);
  const ids = db.prepare('SELECT id, path FROM files WHERE is_test = 0').all() as Array<{ id: number; path: string }>;
  const index = new Map(ids.map((f, i) => [f.id, i]));
  const n = ids.length;
  if (n === 0) return new Map();
  const edges = derivedEdges(db);
  const out = new Float64Array(n);
  const list: Array<[number, number, number]> = [];
  for (const e of edges) {
    const s = index.get(e.src);
    const d = index.get(e.dst);
    if (s === undefined || d === undefined) continue;
    const w = Math.sqrt(e.w);
    out[s] = out[s]! + w;
    out[d] = out[d]! + w * BACKWARD;
    list.push([s, d, w], [d, s, w * BACKWARD]);
  }
  const personal = restartWeights(ids, focusIds(db, asked));
  let rank = Float64Array.from(personal);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) if (out[i] === 0) dangling += rank[i]!;
    for (const [s, d, w] of list) next[d] = next[d]! + (DAMPING * rank[s]! * w) / out[s]!;
    for (let i = 0; i < n; i++) next[i] = next[i]! + (1 - DAMPING + DAMPING * dangling) * personal[i]!;
    rank = next;
  }
  return new Map(ids.map((f, i) => [f.id, rank[i]!]));
}

/** The files a focus names: its files, and the files defining its symbols (a symbol defined in more than a few says nothing). */
function focusIds(db: Database, focus: Focus): Set<number> {
  const ids = new Set<number>();
  const byPath = db.prepare('SELECT id FROM files WHERE path = ?');
  for (const path of new Set(focus.files ?? [])) {
    const row = byPath.get(path) as { id: number } | undefined;
    if (row !== undefined) ids.add(row.id);
  }
  const definers = db.prepare('SELECT DISTINCT file_id FROM symbols WHERE name = ?');
  for (const symbol of [...new Set(focus.symbols ?? [])].slice(0, 50)) {
    const defined = (definers.all(symbol) as Array<{ file_id: number }>).map((r) => r.file_id);
    if (defined.length <= MAX_SYMBOL_DEFINERS) for (const id of defined) ids.add(id);
  }
  return ids;
}

/** The restart vector: the focus's files evenly; uniform when it names none. */
function restartWeights(ids: ReadonlyArray<{ id: number }>, focused: ReadonlySet<number>): Float64Array {
  const n = ids.length;
  const hits = ids.filter((f) => focused.has(f.id)).length;
  return Float64Array.from(ids, (f) => (hits === 0 ? 1 / n : focused.has(f.id) ? 1 / hits : 0));
}

/**
 * The file graph's edges and each name's use count, derived from the whole graph and kept until it
 * changes (`graph_generation`): an index after one changed file stays cheap, and the first map
 * after it pays for the derivation once. An edge src → dst weighs the uses in src of names dst
 * defines, each divided by how many files define the name (a `run` defined in forty files says
 * little about any one of them; names defined in more than twenty are left out), times ten when
 * src imports dst (a use resolved through an import).
 */
function derivedEdges(db: Database): Array<{ src: number; dst: number; w: number }> {
  const generation = (
    db.prepare("SELECT value FROM meta WHERE key = 'graph_generation'").get() as { value: string } | undefined
  )?.value;
  const built = (
    db.prepare("SELECT value FROM meta WHERE key = 'edges_generation'").get() as { value: string } | undefined
  )?.value;
  if (generation === undefined || built !== generation) {
    const edges = computeEdges(db);
    db.transaction(() => {
      db.exec('DELETE FROM file_edges; DELETE FROM name_uses;');
      const insert = db.prepare('INSERT INTO file_edges (src, dst, w) VALUES (?, ?, ?)');
      for (const e of edges) insert.run(e.src, e.dst, e.w);
      db.exec('INSERT INTO name_uses (name, uses) SELECT name, count(*) FROM refs GROUP BY name');
      db.prepare(
        "INSERT INTO meta (key, value) VALUES ('edges_generation', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(generation ?? '0');
    }).immediate();
    return edges;
  }
  return db.prepare('SELECT src, dst, w FROM file_edges').all() as Array<{ src: number; dst: number; w: number }>;
}

/** The edges, computed in one pass over the grouped references (a join in SQL costs far more here). */
function computeEdges(db: Database): Array<{ src: number; dst: number; w: number }> {
  const definers = new Map<string, number[]>();
  for (const row of db.prepare('SELECT DISTINCT name, file_id FROM symbols').iterate() as Iterable<{
    name: string;
    file_id: number;
  }>) {
    const list = definers.get(row.name);
    if (list === undefined) definers.set(row.name, [row.file_id]);
    else list.push(row.file_id);
  }
  const linked = new Set(
    (
      db
        .prepare('SELECT DISTINCT i.file_id AS src, f.id AS dst FROM imports i JOIN files f ON f.path = i.target')
        .all() as Array<{ src: number; dst: number }>
    ).map((l) => `${l.src}:${l.dst}`),
  );
  const weights = new Map<string, number>();
  for (const row of db
    .prepare('SELECT file_id, name, count(*) AS uses FROM refs GROUP BY file_id, name')
    .iterate() as Iterable<{
    file_id: number;
    name: string;
    uses: number;
  }>) {
    const files = definers.get(row.name);
    if (files === undefined || files.length > 20) continue;
    for (const dst of files) {
      if (dst === row.file_id) continue;
      const key = `${row.file_id}:${dst}`;
      weights.set(key, (weights.get(key) ?? 0) + row.uses / files.length);
    }
  }
  return [...weights.entries()].map(([key, w]) => {
    const [src, dst] = key.split(':').map(Number) as [number, number];
    return { src, dst, w: linked.has(key) ? w * 10 : w };
  });
}

/** The map as text, best files first, at most `tokens` tokens. */
export function repoMap(db: Database, options: MapOptions): string {
  const focus = { files: options.focus ?? [], symbols: options.symbols ?? [] };
  const ranks = rankFiles(db, focus);
  const budget = options.tokens * CHARS_PER_TOKEN;
  const files = db.prepare('SELECT id, path FROM files WHERE is_test = 0').all() as Array<{ id: number; path: string }>;
  // What the step names leads (it may rank below a neighbour it feeds), then the walk's order.
  const named = focusIds(db, focus);
  const first = (id: number) => (named.has(id) ? 1 : 0);
  files.sort(
    (a, b) =>
      first(b.id) - first(a.id) || (ranks.get(b.id) ?? 0) - (ranks.get(a.id) ?? 0) || a.path.localeCompare(b.path),
  );
  // A definition's weight: how often other files use its name.
  const top = db.prepare(
    `SELECT s.name, s.kind, s.signature, s.start_line,
            coalesce((SELECT uses FROM name_uses u WHERE u.name = s.name), 0) AS uses
     FROM symbols s WHERE s.file_id = ? ORDER BY uses DESC, s.start_line LIMIT ${SYMBOLS_PER_FILE}`,
  );
  const lines: string[] = [];
  let size = 0;
  for (const file of files) {
    if (size + file.path.length + 2 > budget) break;
    const symbols = (top.all(file.id) as Array<{ signature: string; start_line: number }>).sort(
      (a, b) => a.start_line - b.start_line,
    );
    const block = [`${file.path}:`, ...symbols.map((s) => `  ${s.start_line}: ${s.signature}`)];
    const cost = block.reduce((sum, line) => sum + line.length + 1, 0);
    if (size + cost > budget) {
      if (size + file.path.length + 2 <= budget) {
        lines.push(`${file.path}:`);
        size += file.path.length + 2;
      }
      continue;
    }
    lines.push(...block);
    size += cost;
  }
  return lines.join('\n');
}
