import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGateRecord, writeGateRecord } from '../../../engine/flow/workspace/gate-record.js';
import { tempDir } from '../../helpers/temp.js';

describe('the gate records', () => {
  it('a reader never sees a record half rewritten (a run step re-stamps while a gate reads)', async () => {
    const file = join(await tempDir('neo-gate-record-'), 'dependencies.json');
    const key = randomBytes(32);
    const stamps = (n: number) => Array.from({ length: 200 }, (_, i) => ({ path: `node_modules/p${i}`, n }));
    await writeGateRecord(file, key, 'deps', stamps(0));
    const writes = (async () => {
      for (let n = 1; n <= 100; n++) await writeGateRecord(file, key, 'deps', stamps(n));
    })();
    const reads = (async () => {
      for (let n = 0; n < 300; n++) expect(await readGateRecord(file, key, 'deps', 'hint')).toHaveLength(200);
    })();
    await Promise.all([writes, reads]);
  });
});
