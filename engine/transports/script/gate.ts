import type { Posture } from '../../definitions/index.js';

/** What a script action is, as far as postures care. */
export type ActionClass = 'edit' | 'command' | 'ask';

export type Gate = { kind: 'allow' } | { kind: 'ask' } | { kind: 'deny'; reason: string };

/**
 * The posture rules the script backend plays by, exactly as docs/script-backend.md states them:
 * plan refuses every write, command and ask; default asks about each; acceptEdits lets edits
 * through and asks about the rest; full allows everything without asking.
 */
export function gateFor(posture: Posture, action: ActionClass): Gate {
  switch (posture) {
    case 'plan':
      return {
        kind: 'deny',
        reason: `denied: posture plan allows ${action === 'edit' ? 'no file changes' : action === 'command' ? 'no commands' : 'no tool that needs permission'}`,
      };
    case 'default':
      return { kind: 'ask' };
    case 'acceptEdits':
      return action === 'edit' ? { kind: 'allow' } : { kind: 'ask' };
    case 'full':
      return { kind: 'allow' };
  }
}
