import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CORE = fileURLToPath(new URL('../../../engine/flow/core/', import.meta.url));

describe('the flow core is pure', () => {
  it('imports no node:*, fs, child_process or execa — only itself, engine/expr, engine/posture, the pure engine/util helpers, xstate, and types', async () => {
    const offenders: string[] = [];
    for (const file of (await readdir(CORE)).filter((f) => f.endsWith('.ts'))) {
      const text = await readFile(`${CORE}${file}`, 'utf8');
      for (const match of text.matchAll(/^import\s+(type\s+)?[\s\S]*?from\s+'([^']+)';/gm)) {
        const [, typeOnly, from] = match;
        if (typeOnly) continue;
        const ok =
          from!.startsWith('./') ||
          from === '../../expr/index.js' ||
          from === '../../util/defined.js' ||
          from === '../../util/did-you-mean.js' ||
          from === '../../util/env-name.js' ||
          from === '../../util/step-graph.js' ||
          from === '../../util/excerpt.js' ||
          from === '../../util/duration.js' ||
          from === '../../util/string-list.js' ||
          from === '../../posture/index.js' ||
          from === 'xstate';
        if (!ok) offenders.push(`${file}: ${from}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
