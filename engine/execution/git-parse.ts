/**
 * Parsers for git's NUL-delimited (-z) output. With -z git never quotes or escapes a path, so
 * spaces, newlines and non-ASCII characters arrive verbatim. Pure.
 */

/** One `status --porcelain -z` entry. */
export interface StatusEntry {
  code: string;
  path: string;
  origPath?: string;
}

/** `XY path\0` entries; a rename or copy is followed by its original path. */
export function parsePorcelainZ(text: string): StatusEntry[] {
  const tokens = text.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.length < 4) continue;
    const code = token.slice(0, 2);
    const entry: StatusEntry = { code, path: token.slice(3) };
    if (code.includes('R') || code.includes('C')) entry.origPath = tokens[++i] ?? '';
    entries.push(entry);
  }
  return entries;
}

/** One `diff --numstat -z` entry; counts are absent for binary files. */
export interface NumstatEntry {
  path: string;
  oldPath?: string;
  insertions?: number;
  deletions?: number;
}

/** `ins\tdel\tpath\0`, or for a rename `ins\tdel\t\0old\0new\0`. */
export function parseNumstatZ(text: string): NumstatEntry[] {
  const tokens = text.split('\0');
  const entries: NumstatEntry[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const match = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(tokens[i]!);
    if (match === null) continue;
    const entry: NumstatEntry =
      match[3] !== '' ? { path: match[3]! } : { oldPath: tokens[++i] ?? '', path: tokens[++i] ?? '' };
    if (match[1] !== '-') entry.insertions = Number(match[1]);
    if (match[2] !== '-') entry.deletions = Number(match[2]);
    entries.push(entry);
  }
  return entries;
}

/** One `diff --name-status -z` entry with neo's status letter. */
export interface NameStatusEntry {
  status: 'A' | 'M' | 'D' | 'R';
  path: string;
  oldPath?: string;
}

/** `S\0path\0`, or `Rnnn\0old\0new\0` (copies are reported as additions). */
export function parseNameStatusZ(text: string): NameStatusEntry[] {
  const tokens = text.split('\0');
  const entries: NameStatusEntry[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const code = tokens[i]!;
    if (code === '') continue;
    const letter = code[0]!;
    if (letter === 'R' || letter === 'C') {
      const oldPath = tokens[++i] ?? '';
      const path = tokens[++i] ?? '';
      entries.push(letter === 'R' ? { status: 'R', path, oldPath } : { status: 'A', path });
      continue;
    }
    const path = tokens[++i] ?? '';
    entries.push({ status: letter === 'A' ? 'A' : letter === 'D' ? 'D' : 'M', path });
  }
  return entries;
}
