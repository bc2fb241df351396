import { describe, expect, it } from 'vitest';
import { acknowledgeProvision, type ProvisionMeta } from '../../../engine/capabilities/index.js';

const meta: ProvisionMeta = {
  detected: [],
  applied: ['acme:mcp:acme', 'acme:skill:skills/demo', 'acme:instructions', 'docs:mcp:feed'],
  ignored: [{ capability: 'old', item: '*', reason: 'before' }],
  tiers: {},
  awaitingApproval: [],
  tokenScopeNotes: [],
  profileCached: false,
};

describe('acknowledgeProvision', () => {
  it('moves what the transport left out to ignored with its reason; a skill is matched by its folder name', () => {
    const out = acknowledgeProvision(meta, {
      applied: ['mcp:acme', 'instructions'],
      ignored: ['skill:/home/s/provision/skills/demo', 'mcp:feed'],
      reasons: { 'mcp:feed': 'no sse' },
    });
    expect(out.applied).toEqual(['acme:mcp:acme', 'acme:instructions']);
    expect(out.ignored).toEqual([
      { capability: 'old', item: '*', reason: 'before' },
      { capability: 'acme', item: 'skill:skills/demo', reason: 'the backend did not take it (it gave no reason)' },
      { capability: 'docs', item: 'mcp:feed', reason: 'no sse' },
    ]);
    expect(out.acknowledged).toBe(true);
  });

  it('an item the transport does not mention stays applied; a start-named server it ignored is no capability', () => {
    const out = acknowledgeProvision(meta, { applied: [], ignored: ['mcp:mine'] });
    expect(out.applied).toEqual(meta.applied);
    expect(out.ignored).toEqual(meta.ignored);
  });
});
