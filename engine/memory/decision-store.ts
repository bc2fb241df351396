import type { Database } from './database.js';
import { capTail, capText, DECISION_CAPS, type Decision, type DecisionInput, type DecisionKind } from './decision.js';

/** Which decisions to read back; every filter given must match. Newest first. */
export interface DecisionQuery {
  /** A repository-relative file, or a folder (every file under it). */
  file?: string;
  /** Any of these files (a brief's "files you will touch"). */
  anyFile?: readonly string[];
  /** A symbol named in the change (its hunks, brief or recorded symbols). */
  symbol?: string;
  /** Free text, matched word by word over the brief, evidence, reason, diff and files. */
  search?: string;
  runId?: string;
  kind?: DecisionKind;
  limit?: number;
}

/**
 * Stores one decision and its files in one transaction; returns its id. A decision whose run,
 * step and occurrence are already stored (a resumed execution meeting the same moment again) is
 * not stored twice: the first one's id is returned.
 */
export function recordDecision(db: Database, input: DecisionInput): number {
  const files = [...new Set(input.files ?? [])].slice(0, DECISION_CAPS.files);
  const symbols = [...new Set(input.symbols ?? [])].slice(0, 100);
  const row = {
    at: input.at ?? new Date().toISOString(),
    kind: input.kind,
    source: input.source,
    run_id: input.runId ?? null,
    step: input.step ?? null,
    attempt: input.attempt ?? null,
    occurrence: input.runId === undefined ? null : (input.occurrence ?? null),
    persona: input.persona ?? null,
    backend: input.backend ?? null,
    model: input.model ?? null,
    brief: capText(input.brief, DECISION_CAPS.brief),
    verdict: input.verdict,
    evidence: capTail(input.evidence, DECISION_CAPS.evidence),
    reason: capText(input.reason, DECISION_CAPS.reason),
    diff: capText(input.diff, DECISION_CAPS.diff),
    symbols: symbols.join(' '),
  };
  return db
    .transaction(() => {
      const inserted = db
        .prepare(
          `INSERT INTO decisions (at, kind, source, run_id, step, attempt, occurrence, persona, backend, model, brief, verdict, evidence, reason, diff, symbols)
           VALUES (@at, @kind, @source, @run_id, @step, @attempt, @occurrence, @persona, @backend, @model, @brief, @verdict, @evidence, @reason, @diff, @symbols)
           ON CONFLICT DO NOTHING`,
        )
        .run(row);
      if (inserted.changes === 0)
        return (
          db
            .prepare('SELECT id FROM decisions WHERE run_id IS ? AND step IS ? AND occurrence = ?')
            .get(row.run_id, row.step, row.occurrence) as { id: number }
        ).id;
      const id = Number(inserted.lastInsertRowid);
      const addFile = db.prepare('INSERT OR IGNORE INTO decision_files (decision_id, path) VALUES (?, ?)');
      for (const file of files) addFile.run(id, file);
      db.prepare(
        'INSERT INTO decisions_fts (rowid, brief, evidence, reason, diff, files, symbols) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(id, row.brief, row.evidence, row.reason, row.diff, files.join(' '), row.symbols);
      return id;
    })
    .immediate();
}

/** The files of a run's decisions so far (what a person rejecting the run's work was looking at). */
export function filesOfRun(db: Database, runId: string): string[] {
  return (
    db
      .prepare(
        'SELECT DISTINCT f.path FROM decision_files f JOIN decisions d ON d.id = f.decision_id WHERE d.run_id = ? ORDER BY f.path',
      )
      .all(runId) as Array<{ path: string }>
  ).map((r) => r.path);
}

/** The decisions matching `query`, newest first. */
export function queryDecisions(db: Database, query: DecisionQuery): Decision[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.file !== undefined) {
    const file = query.file.replace(/^\.\//, '').replace(/\/+$/, '');
    where.push(
      "d.id IN (SELECT decision_id FROM decision_files WHERE path = ? OR substr(path, 1, length(?) + 1) = ? || '/')",
    );
    params.push(file, file, file);
  }
  if (query.anyFile !== undefined) {
    if (query.anyFile.length === 0) return [];
    where.push(
      `d.id IN (SELECT decision_id FROM decision_files WHERE path IN (${query.anyFile.map(() => '?').join(',')}))`,
    );
    params.push(...query.anyFile);
  }
  const search = query.search === undefined ? undefined : ftsWords(query.search);
  const symbol = query.symbol === undefined ? undefined : ftsWords(query.symbol);
  // Text that holds no word matches nothing (rather than everything).
  if (search === '' || symbol === '') return [];
  const match = [
    ...(search === undefined ? [] : [search]),
    ...(symbol === undefined ? [] : [`{symbols diff brief} : (${symbol})`]),
  ];
  if (match.length > 0) {
    where.push('d.id IN (SELECT rowid FROM decisions_fts WHERE decisions_fts MATCH ?)');
    params.push(match.map((m) => `(${m})`).join(' AND '));
  }
  if (query.runId !== undefined) {
    where.push('d.run_id = ?');
    params.push(query.runId);
  }
  if (query.kind !== undefined) {
    where.push('d.kind = ?');
    params.push(query.kind);
  }
  const sql = `SELECT d.*, (SELECT group_concat(path, char(10)) FROM decision_files WHERE decision_id = d.id) AS files
    FROM decisions d ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
    ORDER BY d.at DESC, d.id DESC LIMIT ?`;
  params.push(Math.max(1, Math.min(query.limit ?? 50, 1000)));
  return (db.prepare(sql).all(...params) as Row[]).map(fromRow);
}

/** Words of free text as an FTS5 query: each word quoted (no operator of the user's reaches FTS5), all required. */
export function ftsWords(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words
    .slice(0, 32)
    .map((w) => `"${w}"`)
    .join(' ');
}

interface Row {
  id: number;
  at: string;
  kind: DecisionKind;
  source: 'neo' | 'agent';
  run_id: string | null;
  step: string | null;
  attempt: number | null;
  persona: string | null;
  backend: string | null;
  model: string | null;
  brief: string;
  verdict: string;
  evidence: string;
  reason: string;
  diff: string;
  symbols: string;
  files: string | null;
}

function fromRow(row: Row): Decision {
  const optional = (value: string | null) => (value === null || value === '' ? undefined : value);
  const decision: Decision = {
    id: row.id,
    at: row.at,
    kind: row.kind,
    source: row.source,
    verdict: row.verdict,
    files: row.files === null ? [] : row.files.split('\n').sort(),
    symbols: row.symbols === '' ? [] : row.symbols.split(' '),
    ...(row.attempt === null ? {} : { attempt: row.attempt }),
  };
  const fields = {
    runId: optional(row.run_id),
    step: optional(row.step),
    persona: optional(row.persona),
    backend: optional(row.backend),
    model: optional(row.model),
    brief: optional(row.brief),
    evidence: optional(row.evidence),
    reason: optional(row.reason),
    diff: optional(row.diff),
  };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) Object.assign(decision, { [key]: value });
  return decision;
}
