import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approveRun, readCheckedRun, type FlowObservation } from '../../../engine/flow/index.js';
import { project, run } from './helpers.js';

const V1 = `name: watched
steps:
  - { id: wait, approval: { prompt: go? } }
  - { id: after, run: 'echo v1 > out.txt', needs: [wait] }
`;
const BROKEN = V1.replace('needs: [wait]', 'needs: [wiat]');
const V2 = `${V1.replace('echo v1', 'echo v2')}  - { id: extra, run: 'echo extra > extra.txt', needs: [after] }
`;

describe('--watch', () => {
  it(
    'applies a valid edit to steps that have not started, and reports and ignores an invalid one',
    { timeout: 60_000 },
    async () => {
      const { dir, home } = await project({ 'plan.yaml': V1 });
      const notices: string[] = [];
      let stage = 0;
      const observer = (o: FlowObservation) => {
        if (o.type === 'progress' && o.progress.note?.startsWith('waiting for approval') && stage === 0) {
          stage = 1;
          void writeFile(join(dir, 'plan.yaml'), BROKEN);
        }
        if (o.type !== 'notice') return;
        notices.push(o.message);
        if (o.message.startsWith('edit ignored') && stage === 1) {
          stage = 2;
          void writeFile(join(dir, 'plan.yaml'), V2);
        }
        if (o.message.startsWith('definitions reloaded') && stage === 2) {
          stage = 3;
          void approveRun({ home, runId: o.runId, step: 'wait', decision: 'approve' });
        }
      };
      const { outcome, events } = await run(dir, home, { watch: true, observer });
      expect(outcome.status).toBe('succeeded');
      expect(notices[0]).toMatch(
        /^edit ignored \(.*plan\.yaml\):\n.*error\[DEF_UNKNOWN_STEP\]: `needs` names unknown step `wiat`/s,
      );
      expect(notices[1]).toMatch(/^definitions reloaded \(.*plan\.yaml\); steps that have not started use them$/);
      expect(events.find((e) => e.type === 'plan.updated')).toMatchObject({
        added: ['extra'],
        removed: [],
        changed: ['after'],
      });
      const ws = outcome.record.workspace!.path;
      expect(await readFile(join(ws, 'out.txt'), 'utf8')).toBe('v2\n');
      expect(await readFile(join(ws, 'extra.txt'), 'utf8')).toBe('extra\n');
      const pinned = JSON.parse(await readFile(join(home, 'runs', outcome.runId, 'plan.json'), 'utf8'));
      expect(pinned.steps.map((s: { id: string }) => s.id)).toEqual(['wait', 'after', 'extra']);
      // The edit's `plan.updated` line pins the plan.json written before it: the run still checks.
      expect((await readCheckedRun(home, outcome.runId)).plan).toEqual(pinned);
    },
  );
});
