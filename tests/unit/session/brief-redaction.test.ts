import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harness } from './harness.js';

const TOKEN = 'ghp_briefTokenValue0123456789';

describe('a brief that holds an environment secret', () => {
  it('is kept redacted in the session record (meta.json and events), as every other string is', async () => {
    const h = await harness();
    const started = await h.service.execute(
      { op: 'start', brief: `deploy with ${TOKEN} and report`, backend: 'fake', cwd: h.cwd },
      { scope: 'owner' },
      { env: { ...process.env, GITHUB_TOKEN: TOKEN } },
    );
    await h.service.execute({ op: 'stop', sessionId: started.sessionId }, { scope: 'owner' });
    const dir = join(h.home, 'code-sessions', started.sessionId);
    const files = await readdir(dir);
    const stored = (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8').catch(() => '')))).join('\n');
    expect(stored).toContain('deploy with [redacted ${GITHUB_TOKEN}] and report');
    expect(stored).not.toContain(TOKEN);
    await h.service.close();
  });
});
