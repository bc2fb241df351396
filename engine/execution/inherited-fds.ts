/**
 * Descriptors neo holds without close-on-exec beyond stdio: every descriptor neo opens itself is
 * close-on-exec (libuv), so these came from whoever started neo — a log file, a CI runner's pipe,
 * a jobserver — and every child would inherit them, a confined one too, which could then write
 * (or read) through them, by number or through `/proc/self/fd`, whatever its sandbox hides. A
 * confined process gets each of them replaced by /dev/null: same numbers, nothing behind them.
 */
import { openSync, readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

let found: readonly number[] | undefined;
let devNull: number | undefined;

/** The inherited descriptors (found once: neo never opens one, so the set only shrinks). */
export function inheritedFds(): readonly number[] {
  found ??= scan();
  return found;
}

/**
 * Extra stdio entries for a spawn (index 3 on) that put /dev/null at each inherited descriptor's
 * number in the child; empty when there is none (the usual case).
 */
export function shutInheritedStdio(): Array<number | 'ignore'> {
  const fds = inheritedFds();
  if (fds.length === 0) return [];
  devNull ??= openSync('/dev/null', 'r+');
  const extra: Array<number | 'ignore'> = Array.from({ length: Math.max(...fds) - 2 }, () => 'ignore');
  for (const fd of fds) extra[fd - 3] = devNull;
  return extra;
}

function scan(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return []; // no /proc (not Linux): nothing to find this way
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      continue; // the listing's own descriptor, closed by now
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}
