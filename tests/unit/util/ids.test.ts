import { describe, expect, it } from 'vitest';
import { childRunId, newRunId } from '../../../engine/flow/runtime/ids.js';
import { mintSessionId } from '../../../engine/session/index.js';
import { checkId, checkIdOrPrefix, isId } from '../../../engine/util/ids.js';

const PATHS = ['..', '../x', '../../evil-run', 'a/b', '/etc/passwd', '.', '', 'x\0y', 'cs_../../x', 'a\\b'];

describe('one validator per id kind', () => {
  it('accepts every id neo mints', () => {
    const run = newRunId();
    expect(isId('run', run)).toBe(true);
    expect(isId('run', childRunId(childRunId(run, 'fan[2]', 1, 2), 'sub', 3, 1))).toBe(true);
    expect(isId('run', 'persona-code-specialist-1f2e3d4c5b6a')).toBe(true);
    expect(isId('run', `persona-reviewer-${Date.now().toString(36)}`)).toBe(true);
    expect(isId('session', mintSessionId())).toBe(true);
    for (const key of ['ship', 'ship[2]', 'fix-q1', 'fix[3]-q12', 'q1', 'review.v2'])
      expect([key, isId('approval', key)]).toEqual([key, true]);
  });

  it('refuses anything that could be a path, with the shape it expects', () => {
    for (const kind of ['run', 'session', 'approval'] as const)
      for (const value of PATHS) expect([kind, value, isId(kind, value)]).toEqual([kind, value, false]);
    for (const value of PATHS) {
      expect(() => checkIdOrPrefix('run', value)).toThrow(expect.objectContaining({ code: 'FLOW_BAD_RUN_ID' }));
      expect(() => checkIdOrPrefix('session', value)).toThrow(expect.objectContaining({ code: 'SESSION_BAD_ID' }));
    }
    expect(() => checkId('approval', '../x')).toThrow('"../x" is not an approval step');
  });

  it('takes a prefix only where a unique prefix is enough', () => {
    expect(checkIdOrPrefix('run', '2026')).toBe('2026');
    expect(checkIdOrPrefix('session', 'cs_3q')).toBe('cs_3q');
    expect(() => checkId('run', '2026')).toThrow(expect.objectContaining({ code: 'FLOW_BAD_RUN_ID' }));
  });
});
