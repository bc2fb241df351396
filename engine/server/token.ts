import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { NeoError } from '../util/errors.js';
import { mkdirPrivate } from '../util/private-store.js';

/** 256 random bits, base64url: what the bearer token is. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The server's bearer token: read from NEO_HOME/server.token, or created there on first start
 * (exclusively, mode 0600, so two servers starting at once agree on one). A token file others
 * can read is tightened to 0600; one that does not hold a token is refused rather than trusted.
 */
export async function loadOrCreateToken(path: string): Promise<string> {
  await mkdirPrivate(dirname(path));
  try {
    await writeFile(path, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  await chmod(path, 0o600);
  const token = (await readFile(path, 'utf8')).trim();
  if (!TOKEN_SHAPE.test(token))
    throw new NeoError('SERVER_BAD_TOKEN_FILE', `${path} does not hold a neo server token`, {
      hint: 'delete the file; `neo serve` creates a new one (open the new URL it prints)',
    });
  return token;
}

/**
 * Compares a presented token with the real one in constant time: both are hashed first, so
 * neither the content nor the length of the real token leaks through timing.
 */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}
