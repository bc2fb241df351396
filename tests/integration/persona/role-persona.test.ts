/**
 * A persona that is not a driver, run on its own: it is the driven agent's role — its body is
 * appended to the agent's system prompt, its tools bound the session — under neo's default rules.
 */
import { describe, expect, test } from 'vitest';
import { loadPersona, runPersona } from '../../../engine/persona/index.js';
import { createSessionService, silentLog } from '../../../engine/session/index.js';
import type { StartSessionOptions, Transport } from '../../../engine/transports/index.js';
import { ScriptTransport } from '../../../engine/transports/script/index.js';
import { writeScenario } from '../../fixtures/persona/scenario.js';
import { digest, personaHarness } from './harness.js';

const WRITER =
  '---\ndescription: Writes notes.\nmaxPosture: acceptEdits\ninitialPosture: default\ntaskTags: [docs]\n---\nYou write short notes in notes/.\n';

describe('a role persona', () => {
  test("is the driven agent's role under the default rules", async () => {
    const h = await personaHarness({ agents: { writer: WRITER } });
    const script = await writeScenario(h.cwd, h.scripts, {
      turns: [
        [
          { write: { path: 'notes/a.md', content: '# A\n' } },
          { write: { path: '../outside.md', content: 'x' } },
          { run: { command: 'ls' } },
          { say: 'wrote notes/a.md' },
        ],
      ],
    });
    const seen: StartSessionOptions[] = [];
    const capture: Transport = {
      id: 'script',
      probeAvailability: async () => ({ available: true, status: 'ok' }),
      start: async (o) => (seen.push(o), new ScriptTransport().start(o)),
    };
    const service = createSessionService({
      home: h.home,
      definitions: h.set,
      log: silentLog,
      defaultCwd: h.cwd,
      transports: async (id) => (id === 'script' ? capture : undefined),
    });
    try {
      const observed: Parameters<typeof digest>[0][number][] = [];
      const result = await runPersona({
        home: h.home,
        set: h.set,
        persona: loadPersona(h.set, 'writer'),
        brief: 'Write a note.',
        cwd: h.cwd,
        sessions: service,
        backendOptions: { script },
        observe: (o) => observed.push(o),
      });
      expect(seen[0]!.appendSystemPrompt).toBe('You write short notes in notes/.');
      expect(digest(observed)).toEqual([
        'selected script',
        'started script default<=acceptEdits rounds 20',
        'turn clarification',
        'allow write by clarify[0]',
        // ../outside.md never reaches the driver: the posture gate denies an edit outside the workspace.
        'turn clarification',
        'deny run by otherwise',
        'turn turn_complete',
        'judged stop success',
        'settled partial',
      ]);
      // Nothing verified a role persona's work: the honest verdict is partial.
      expect(result.verdict).toEqual({
        outcome: 'partial',
        note: 'the agent finished its turn (not verified: no verify command)',
        failureReason: 'not verified: this persona and step have no verify command',
        code: 'PERSONA_NOT_VERIFIED',
      });
      expect(result.records).toEqual([
        expect.objectContaining({ persona: 'writer', taskTags: ['docs'], outcome: 'partial', outcomeSource: 'driver' }),
      ]);
    } finally {
      await service.close();
    }
  });
});
