/**
 * The gate's records under NEO_HOME (a gated step's base, the run's trusted dependency stamps):
 * JSON with a MAC under the store key, so a record nothing but neo wrote is ever read back as the
 * truth a gate judges by. NEO_HOME is hidden from every sandbox; the MAC is the second lock.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { macMatches, macOf } from '../../util/store-key.js';

/**
 * Writes `value` to `file` (0600), sealed with a MAC of kind `kind` under `key`, atomically: the
 * run's dependency stamps are rewritten after each `run:` step that succeeds while a parallel
 * agent step's gate reads them, and a torn read is a MAC that does not check (FLOW_GATE_TAMPERED).
 */
export async function writeGateRecord(file: string, key: Buffer, kind: string, value: unknown): Promise<void> {
  const body = JSON.stringify(value);
  await writeFileAtomic(file, `${JSON.stringify({ body, mac: macOf(key, kind, body) })}\n`, { private: true });
}

/**
 * The record in `file`, undefined when there is none; FLOW_GATE_TAMPERED (with `hint`, what to do)
 * when it is not one neo wrote with this key and kind.
 */
export async function readGateRecord<T>(file: string, key: Buffer, kind: string, hint: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as { body?: unknown; mac?: unknown };
    if (typeof value.body === 'string' && macMatches(key, value.mac, kind, value.body))
      return JSON.parse(value.body) as T;
  } catch {
    // Not a record neo wrote: said below.
  }
  throw new NeoError('FLOW_GATE_TAMPERED', `${file} is not the gate record neo wrote (its MAC does not check)`, {
    hint,
  });
}
