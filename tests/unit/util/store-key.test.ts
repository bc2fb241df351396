import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { macMatches, macOf, storeKey } from '../../../engine/util/store-key.js';

describe('storeKey: one private key per NEO_HOME', () => {
  it('is created once, 0600, and the same on every call', () => {
    const home = mkdtempSync(join(tmpdir(), 'neo-key-'));
    const key = storeKey(home);
    expect(key).toHaveLength(32);
    expect(readFileSync(join(home, 'keys', 'store.key')).equals(key)).toBe(true);
    expect(statSync(join(home, 'keys', 'store.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'keys')).mode & 0o777).toBe(0o700);
  });

  it('refuses a key file of the wrong size rather than replacing it', () => {
    const home = mkdtempSync(join(tmpdir(), 'neo-key-'));
    mkdirSync(join(home, 'keys'));
    writeFileSync(join(home, 'keys', 'store.key'), 'short');
    expect(() => storeKey(home)).toThrow(/does not hold a 32-byte key/);
    expect(readFileSync(join(home, 'keys', 'store.key'), 'utf8')).toBe('short');
  });
});

describe('macOf / macMatches', () => {
  const key = Buffer.alloc(32, 7);
  it('checks what it made and nothing else; parts never run together', () => {
    const mac = macOf(key, 'ab', 'c');
    expect(macMatches(key, mac, 'ab', 'c')).toBe(true);
    expect(macMatches(key, mac, 'a', 'bc')).toBe(false);
    expect(macMatches(Buffer.alloc(32, 8), mac, 'ab', 'c')).toBe(false);
    expect(macMatches(key, 'zz', 'ab', 'c')).toBe(false);
    expect(macMatches(key, undefined, 'ab', 'c')).toBe(false);
  });
});
