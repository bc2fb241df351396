import type { Database } from './database.js';

/** Keywords that introduce a definition in a hunk header's context (git's funcname line). */
const CONTEXT =
  /\b(?:function|def|func|fn|class|interface|type|struct|enum|trait|impl)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/g;

/**
 * The symbols a unified diff touches: the definitions in the code graph whose spans overlap a
 * hunk's new lines, and the definitions named in hunk headers (git's function context). Best
 * effort: a graph not yet indexed leaves only the headers. At most 30.
 */
export function symbolsOfDiff(db: Database, unified: string): string[] {
  const found = new Set<string>();
  const overlap = db.prepare(
    'SELECT DISTINCT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.start_line <= ? AND s.end_line >= ?',
  );
  let file: string | undefined;
  for (const line of unified.split('\n')) {
    if (line.startsWith('+++ ')) {
      const path = line.slice(4).trim();
      file = path === '/dev/null' ? undefined : path.replace(/^b\//, '');
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@(.*)$/.exec(line);
    if (hunk === null) continue;
    const start = Number(hunk[1]);
    const end = start + Math.max(Number(hunk[2] ?? '1'), 1) - 1;
    for (const match of (hunk[3] ?? '').matchAll(CONTEXT)) found.add(match[1]!);
    if (file !== undefined)
      for (const row of overlap.all(file, end, start) as Array<{ name: string }>) found.add(row.name);
    if (found.size >= 30) break;
  }
  return [...found].slice(0, 30);
}
