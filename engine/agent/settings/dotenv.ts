/**
 * A small `.env` reader: `NAME=value` lines, optional `export `, `#` comments, single quotes
 * (literal) and double quotes (with \n, \t, \" and \\ escapes). No interpolation: a value is
 * exactly what the file says.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { UsageError } from '../../util/errors.js';
import { describeNonFile } from '../../util/regular-file.js';

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

/** Larger than any `.env` is: one is refused rather than read whole. */
export const MAX_DOTENV_BYTES = 1024 * 1024;

/**
 * Reads a .env file; a missing file defines nothing. A trusted project's `.neo/.env` lies in the
 * workspace a confined step writes in `inplace` isolation, so what is there is checked on the
 * opened descriptor before a byte is read: a FIFO (opened without waiting for a writer), a device
 * (a link to /dev/zero), a socket or a folder is refused, and so is a file past
 * {@link MAX_DOTENV_BYTES} — never waited on or read without end, never silently taken as empty.
 * Read synchronously: a few hundred bytes, and `node:fs/promises` would cost every run its load.
 */
export async function readDotenv(file: string): Promise<Map<string, string>> {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return new Map();
    throw notAFile(file, code === 'ELOOP' ? 'a loop of symbolic links' : (error as Error).message);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notAFile(file, describeNonFile(info));
    if (info.size > MAX_DOTENV_BYTES) throw notAFile(file, `${info.size} bytes, more than a .env holds`);
    return parseDotenv(readFileSync(fd, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

function notAFile(file: string, what: string): UsageError {
  return new UsageError('AGENT_DOTENV_NOT_A_FILE', `${file} is not a .env file: ${what}`, {
    hint: 'a .env is a small regular file of NAME=value lines; a step of a run may have put this there: look at it, then remove it or replace it with the file you meant',
  });
}
