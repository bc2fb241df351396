/**
 * run.json as neo wrote it: the record, where the event chain stood when it was written
 * (`chain`: the last event's seq and line MAC), and a MAC over both, keyed by the store key and
 * bound to the run's id. A record whose MAC checks names a workspace, inputs and a plan hash
 * neo itself recorded; its `chain` also tells a log cut short (lines dropped from its end) from
 * the one it was written beside.
 */
import { macMatches, macOf } from '../../util/store-key.js';
import type { RunRecord } from './run-files.js';
import { tamperedError, unauthenticatedError } from './trust-errors.js';
import type { NeoError } from '../../util/errors.js';

const DOMAIN = 'neo.run-record.v1';

/** Where the event chain stood: the last event written (seq 0 and no MAC before the first). */
export interface ChainPoint {
  seq: number;
  mac: string;
}

/** run.json's content for `record`: the record, the chain point and their MAC. */
export function sealRecord(key: Buffer, record: RunRecord, chain: ChainPoint): Record<string, unknown> {
  const body = { ...record, chain };
  return { ...body, mac: macOf(key, DOMAIN, record.runId, JSON.stringify(body)) };
}

/** A record as read: the record itself, its chain point, and why it cannot be believed (if so). */
export interface OpenedRecord {
  record: RunRecord;
  chain?: ChainPoint;
  /** STORE_TAMPERED or STORE_UNAUTHENTICATED: the record is to be shown, never acted on. */
  untrusted?: NeoError;
}

/** Checks run.json's parsed content against its MAC (`runId` from the folder, never from the file). */
export function openRecord(key: Buffer, runId: string, value: Record<string, unknown>, path: string): OpenedRecord {
  const { mac, ...body } = value;
  const { chain, ...record } = body as unknown as { chain?: ChainPoint } & RunRecord;
  if (mac === undefined) return { record, untrusted: unauthenticatedError(path) };
  if (!macMatches(key, mac, DOMAIN, runId, JSON.stringify(body)))
    return { record, untrusted: tamperedError(path, 'the record does not match its MAC') };
  return { record, ...(chain === undefined ? {} : { chain }) };
}
