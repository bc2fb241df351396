/**
 * The HMAC chain over a run's events.jsonl. Each line is its event's JSON with one more field
 * at the end, `"mac"`: the MAC, keyed by the store key (util/store-key.ts), of the run's id, the
 * previous line's MAC and the line's own bytes before it. A process that can write the run's
 * folder but not read the key cannot add, change, drop from the middle, reorder or swap in
 * lines of another run without the chain breaking at that line. The lines that change the plan
 * a run follows (its first, a resume, a watched edit) carry `"planHash"` too, so the chain pins
 * plan.json.
 */
import { macMatches, macOf } from '../../util/store-key.js';
import { NeoError } from '../../util/errors.js';
import type { RunEvent } from '../core/events.js';
import { tamperedError, unauthenticatedError } from './trust-errors.js';

const DOMAIN = 'neo.run-events.v1';
const MAC_TAIL = /,"mac":"([0-9a-f]{64})"\}$/;

/** Events whose line pins the plan the run follows from there on. */
export const PLAN_PINS: ReadonlySet<RunEvent['type']> = new Set(['run.started', 'run.resumed', 'plan.updated']);

/** What the chain says before its first line. */
export const CHAIN_START = '';

/** A sealed line (no newline) and its MAC, which the next line chains to. */
export function sealLine(key: Buffer, runId: string, previous: string, body: string): { line: string; mac: string } {
  const mac = macOf(key, DOMAIN, runId, previous, body);
  return { line: `${body.slice(0, -1)},"mac":"${mac}"}`, mac };
}

/** A run's log as read and checked. */
export interface RunLog {
  events: RunEvent[];
  /** Each event's line MAC, by position (empty for a log with none). */
  macs: string[];
  /** The plan hash the last pinning line carries. */
  planHash?: string;
  /** Whether the lines carry MACs: false only for a log written before neo authenticated runs. */
  authenticated: boolean;
  /** The bytes of the whole lines; anything after is a torn last line. */
  goodBytes: number;
  /** A torn last line (a crash mid-write) follows the good bytes. */
  torn: boolean;
  /** The last line is whole but lacks its newline. */
  unterminated: boolean;
}

/**
 * Reads and checks a log: every line's MAC against the chain (STORE_TAMPERED naming the file and
 * line at the first that fails), `seq` gapless from 1. A torn last line — one that does not
 * parse, as a crash mid-write leaves — is not tampering: it is dropped (a whole line whose MAC
 * fails is). A log with no MAC on any line is returned `authenticated: false`; one with MACs on
 * some lines only is tampered.
 */
export function parseRunLog(text: string, context: { key: Buffer; runId: string; path: string }): RunLog {
  const { key, runId, path } = context;
  const lines = text.split('\n');
  const log: RunLog = {
    events: [],
    macs: [],
    authenticated: true,
    goodBytes: 0,
    torn: false,
    unterminated: false,
  };
  let previous = CHAIN_START;
  let sealed: boolean | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const last = i === lines.length - 1;
    if (line === '') {
      if (!last) log.goodBytes += 1;
      continue;
    }
    const tail = MAC_TAIL.exec(line);
    const body = tail === null ? line : `${line.slice(0, tail.index)}}`;
    let event: RunEvent & { planHash?: unknown };
    try {
      event = JSON.parse(body) as RunEvent;
    } catch {
      if (!last)
        throw new NeoError('STORE_CORRUPT', `${path}:${i + 1}: unreadable event line in the middle of the log`);
      log.torn = true;
      break;
    }
    sealed ??= tail !== null;
    if (sealed !== (tail !== null))
      throw tamperedError(`${path}:${i + 1}`, sealed ? 'a line without its MAC' : 'a MAC on a log that has none');
    if (tail !== null) {
      if (!macMatches(key, tail[1], DOMAIN, runId, previous, body))
        throw tamperedError(
          `${path}:${i + 1}`,
          'the line does not match its MAC (it was written or moved by something other than neo)',
        );
      previous = tail[1]!;
      log.macs.push(previous);
      if (typeof event.planHash === 'string') log.planHash = event.planHash;
    }
    delete event.planHash;
    log.events.push(event);
    log.goodBytes += Buffer.byteLength(line, 'utf8') + (last ? 0 : 1);
    if (last) log.unterminated = true;
  }
  log.authenticated = sealed !== false;
  log.events.forEach((event, index) => {
    if (event.seq !== index + 1)
      throw new NeoError('STORE_CORRUPT', `${path}: event ${index + 1} has seq ${event.seq}; the log has a gap`);
  });
  return log;
}

/** The log, refused unless its lines carry MACs (a caller about to act on it). */
export function requireAuthenticated(log: RunLog, path: string): RunLog {
  if (!log.authenticated) throw unauthenticatedError(path);
  return log;
}
