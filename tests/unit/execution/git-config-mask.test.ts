import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitConfigMasks, withoutCredentials } from '../../../engine/execution/git-config-mask.js';
import { tempDir } from '../../helpers/temp.js';

const CONFIG = `[core]
\tbare = false
[remote "origin"]
\turl = https://x-access-token:ghs_TOKEN1@github.com/o/r.git
\tpushurl = https://ghp_TOKEN2@github.com/o/r.git
[url "https://user:TOKEN3@example.com/"]
\tinsteadOf = https://example.com/
[http "https://github.com/"]
\textraheader = AUTHORIZATION: basic SEVDREVS
[sendemail]
\tsmtpPass = x
\tsmtpPassword = TOKEN4
[branch "main"]
\tremote = origin
`;

describe('a git config shown inside a sandbox', () => {
  it('keeps hosts, paths and settings, and takes out every userinfo and credential key', () => {
    const masked = withoutCredentials(CONFIG);
    for (const secret of ['TOKEN1', 'TOKEN2', 'TOKEN3', 'TOKEN4', 'SEVDREVS']) expect(masked).not.toContain(secret);
    expect(masked).toContain('url = https://github.com/o/r.git');
    expect(masked).toContain('[url "https://example.com/"]');
    expect(masked).toContain('\tremote = origin');
    expect(masked).toContain('\tbare = false');
    expect(masked).toMatch(/# extraheader: removed by neo/);
  });

  it('binds a copy only over configs that hold a credential, the same file for the same content', async () => {
    const root = await tempDir('neo-mask-');
    const [dirty, clean] = [join(root, 'a.git'), join(root, 'b.git')];
    mkdirSync(dirty);
    mkdirSync(clean);
    writeFileSync(join(dirty, 'config'), CONFIG);
    writeFileSync(join(clean, 'config'), '[core]\n\tbare = true\n');
    const masks = join(root, 'masks');
    const binds = gitConfigMasks([dirty, clean, join(root, 'missing')], masks);
    expect(binds).toHaveLength(1);
    expect(binds[0]!.at).toBe(join(dirty, 'config'));
    expect(readFileSync(binds[0]!.path, 'utf8')).toBe(withoutCredentials(CONFIG));
    expect(gitConfigMasks([dirty], masks)).toEqual(binds);
  });
});
