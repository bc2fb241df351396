import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enforcementTable, matrixRow, postureCell, renderBackendsDoc } from '../../../cli/backend-matrix.js';
import { packagedBackendsDoc } from '../../../cli/commands/backends-doc.js';
import { packageRoot } from '../../../engine/util/package-root.js';
import { FAKE_DESCRIPTORS } from '../../contract/fake-backends.js';

describe('docs/backends.md', () => {
  it('is exactly what the packaged descriptors generate (run `neo backends doc --write` after changing one)', async () => {
    const committed = await readFile(join(packageRoot(), 'docs', 'backends.md'), 'utf8');
    expect(committed).toBe(await packagedBackendsDoc());
  });

  it('holds the one enforcement table; docs/flows.md links to it instead of repeating it', async () => {
    const flows = await readFile(join(packageRoot(), 'docs', 'flows.md'), 'utf8');
    expect(flows).toContain('[Enforcement in docs/backends.md](backends.md#enforcement)');
    expect(flows).not.toContain('| backend | neo enforces |');
    const table = enforcementTable([{ id: 'fake-acp', data: FAKE_DESCRIPTORS.acp }]);
    expect(table.at(-1)).toBe(
      '| fake-acp | not stated | not stated | nothing | no credential variable; confined: its own home, seeded with nothing |',
    );
    expect(await packagedBackendsDoc()).toContain([...enforcementTable([]).slice(0, 2)].join('\n'));
  });

  it('renders matrix rows and posture cells from descriptor fields alone', () => {
    expect(matrixRow('codex', FAKE_DESCRIPTORS.codex)).toEqual([
      'codex',
      'codex',
      'plan, default, acceptEdits, full',
      'yes',
      '—',
      'no',
      'no',
      'no',
      'per-turn',
      '—',
      'yes',
      'metered',
    ]);
    expect(postureCell(FAKE_DESCRIPTORS.codex.postureMap.acceptEdits)).toBe(
      'sandbox `workspace-write`, approvalPolicy `on-request`',
    );
    expect(postureCell({ mode: 'build', settings: { env: { X: { a: 1 } } } })).toBe('mode `build`, env `X={"a":1}`');
    expect(postureCell(undefined)).toBe('✗ (refused)');
    const doc = renderBackendsDoc([{ id: 'fake-acp', data: FAKE_DESCRIPTORS.acp }]);
    expect(doc).toContain('| fake-acp | acp | plan, default, acceptEdits, full | yes |');
    expect(doc).toContain('## Adding another ACP agent: one data file, no code');
  });
});
