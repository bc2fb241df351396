/**
 * A small `.env` reader: `NAME=value` lines, optional `export `, `#` comments, single quotes
 * (literal) and double quotes (with \n, \t, \" and \\ escapes). No interpolation: a value is
 * exactly what the file says.
 */
import { readRegularFile } from '../../util/regular-file.js';

/** The variables a .env text defines, in order (a later line wins). */
export function parseDotenv(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const name = match[1]!;
    let value = match[2]!;
    if (value.startsWith('"')) {
      // A double-quoted value may span lines.
      let raw = value.slice(1);
      while (!/(^|[^\\])(\\\\)*"/.test(raw) && i + 1 < lines.length) raw += `\n${lines[++i]}`;
      const end = closingQuote(raw);
      value = raw
        .slice(0, end === -1 ? raw.length : end)
        .replace(/\\(["\\nt])/g, (_, c: string) => ({ n: '\n', t: '\t', '"': '"', '\\': '\\' })[c] ?? c);
    } else if (value.startsWith("'")) {
      const end = value.indexOf("'", 1);
      value = value.slice(1, end === -1 ? undefined : end);
    } else {
      value = value.replace(/\s+#.*$/, '').trim();
    }
    out.set(name, value);
  }
  return out;
}

function closingQuote(raw: string): number {
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === '"') return i;
  }
  return -1;
}

/** Reads a .env file; a missing file defines nothing. */
export async function readDotenv(file: string): Promise<Map<string, string>> {
  // Not a regular file (a named pipe a confined step left in the checkout) defines nothing.
  const bytes = readRegularFile(file, MAX_DOTENV_BYTES);
  return parseDotenv(typeof bytes === 'object' ? bytes.toString('utf8') : '');
}

/** A `.env` larger than this is not one (a planted file is not read whole into memory). */
const MAX_DOTENV_BYTES = 1024 * 1024;
