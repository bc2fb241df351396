/**
 * The per-home secret that authenticates what neo reads back from its store. It lives in
 * `NEO_HOME/keys/store.key` (32 random bytes, 0600, in a 0700 folder), is created once by the
 * first process that needs it (an exclusive create: two racing processes end with the same key),
 * and never enters a sandbox: NEO_HOME is hidden from every confined process. A file a confined
 * process could have written is believed only when its MAC, made with this key, checks.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { NeoError } from './errors.js';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from './private-store.js';

const KEY_BYTES = 32;
const keys = new Map<string, Buffer>();

/** The store key of `home`, created on first use. */
export function storeKey(home: string): Buffer {
  const cached = keys.get(home);
  if (cached !== undefined) return cached;
  const dir = join(home, 'keys');
  const file = join(dir, 'store.key');
  mkdirPrivateSync(dir);
  let key = readKey(file);
  if (key === undefined) {
    try {
      const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
      try {
        writeSync(fd, randomBytes(KEY_BYTES));
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      // Another process created it first: its key is the key.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    key = readKey(file);
  }
  if (key === undefined)
    throw new NeoError('STORE_KEY_UNREADABLE', `${file} does not hold a ${KEY_BYTES}-byte key`, {
      hint: 'remove the file only if no run in this NEO_HOME must be resumed: every run it authenticated would read as tampered',
    });
  keys.set(home, key);
  return key;
}

/** The MAC (hex HMAC-SHA256) of `parts`, each length-prefixed so no two lists of parts collide. */
export function macOf(key: Buffer, ...parts: ReadonlyArray<string | Uint8Array>): string {
  const hmac = createHmac('sha256', key);
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hmac.update(`${bytes.length}:`);
    hmac.update(bytes);
  }
  return hmac.digest('hex');
}

/** Whether `mac` is the MAC of `parts` (compared in constant time). */
export function macMatches(key: Buffer, mac: unknown, ...parts: ReadonlyArray<string | Uint8Array>): boolean {
  if (typeof mac !== 'string') return false;
  const expected = Buffer.from(macOf(key, ...parts), 'hex');
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readKey(file: string): Buffer | undefined {
  try {
    const key = readFileSync(file);
    return key.length === KEY_BYTES ? key : undefined;
  } catch {
    return undefined;
  }
}
