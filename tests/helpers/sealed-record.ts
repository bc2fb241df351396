import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sealRecord } from '../../engine/flow/store/sealed-record.js';
import type { RunRecord } from '../../engine/flow/store/run-files.js';
import { storeKey } from '../../engine/util/store-key.js';

/**
 * Rewrites a run's run.json as neo would (sealed with the home's store key, at the chain point
 * it had): a test that simulates a state neo itself could have recorded (a recycled pid, a
 * zombie driver) changes the record this way, not by writing a file neo would refuse.
 */
export function resealRecord(home: string, runId: string, change: (record: RunRecord) => RunRecord): void {
  const path = join(home, 'runs', runId, 'run.json');
  const {
    mac: _mac,
    chain,
    ...record
  } = JSON.parse(readFileSync(path, 'utf8')) as RunRecord & {
    mac: string;
    chain: { seq: number; mac: string };
  };
  writeFileSync(path, JSON.stringify(sealRecord(storeKey(home), change(record as RunRecord), chain)));
}
