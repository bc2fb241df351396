import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const POSTURE = fileURLToPath(new URL('../../../engine/posture/', import.meta.url));

describe('the posture module is pure', () => {
  it('imports nothing but itself, shell-quote and generated types', async () => {
    const offenders: string[] = [];
    for (const file of (await readdir(POSTURE)).filter((f) => f.endsWith('.ts'))) {
      const text = await readFile(`${POSTURE}${file}`, 'utf8');
      for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gm)) {
        const [, typeOnly, from] = match;
        const ok =
          from!.startsWith('./') ||
          from === 'shell-quote' ||
          (typeOnly !== undefined && from!.startsWith('../generated/'));
        if (!ok) offenders.push(`${file}: ${from}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
