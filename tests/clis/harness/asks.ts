import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseJsonl } from '../../../engine/util/jsonl.js';
import { ROOT } from './clis.js';
import type { Sandbox } from './sandbox.js';

export const WIRE_TAP = join(ROOT, 'tests', 'clis', 'harness', 'wire-tap.mjs');
export const ASK_FIXTURES = join(ROOT, 'tests', 'fixtures', 'asks');

/** One line the CLI read or wrote, as the wire tap logged it. */
export interface TappedLine {
  dir: 'in' | 'out';
  line: string;
}

/**
 * An executable (beside `log`) that runs `bin` behind the wire tap. The tap's own settings ride
 * in the script: a CLI's environment is an allowlist, so WIRE_TAP_* set for neo never reach it.
 */
export function tapWrapper(bin: string, log: string): string {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const file = join(dirname(log), `wire-tap-${process.pid}-${Date.now()}.sh`);
  writeFileSync(
    file,
    `#!/bin/sh\nexport WIRE_TAP_BIN=${quote(bin)} WIRE_TAP_LOG=${quote(log)}\nexec ${quote(WIRE_TAP)} "$@"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

/**
 * The environment that runs `bin` behind the wire tap: the adapter starts the tap (through the
 * backend's NEO_<ID>_BIN), and the tap runs the real CLI and logs every protocol line.
 */
export function tapped(binVar: string, bin: string, box: Sandbox): { env: NodeJS.ProcessEnv; log: string } {
  const log = join(box.root, 'wire.jsonl');
  return { env: { [binVar]: tapWrapper(bin, log) }, log };
}

/** The JSON messages the CLI wrote (dir out), in order. */
export function messagesOut(log: string): Array<Record<string, unknown>> {
  if (!existsSync(log)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const entry of parseJsonl<TappedLine>(readFileSync(log, 'utf8')).records) {
    if (entry.dir !== 'out') continue;
    try {
      out.push(JSON.parse(entry.line) as Record<string, unknown>);
    } catch {
      // A CLI's non-JSON line (a banner) carries no ask.
    }
  }
  return out;
}

/**
 * Replaces the sandbox's temp root with `/sandbox` everywhere in a captured value, so a fixture
 * reads the same on every machine: the workspace is /sandbox/repo, the other checkout /sandbox/checkout.
 */
export function anonymize<T>(value: T, box: Sandbox): T {
  return JSON.parse(JSON.stringify(value).split(box.root).join('/sandbox')) as T;
}

/** Writes one captured ask as tests/fixtures/asks/<backend>/<name>.json. */
export async function writeAskFixture(backend: string, name: string, fixture: unknown): Promise<void> {
  const dir = join(ASK_FIXTURES, backend);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
}
