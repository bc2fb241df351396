import { join } from 'node:path';
import { loadDefinitions, type DefinitionSet, type Posture } from '../../../engine/definitions/index.js';
import { createTransport, type AgentSession } from '../../../engine/transports/index.js';
import { binaryEnvVar } from '../../../engine/transports/shared/binary.js';
import { EventReader } from '../../contract/event-reader.js';
import { FAKE_CLI_DIR, fakeWithEnv } from '../../contract/fake-backends.js';
import { tempDir } from '../../helpers/temp.js';
import { defined } from '../../../engine/util/defined.js';

export const CAPTURES = join(FAKE_CLI_DIR, '..', 'cli-captures');
const REPLAY = join(FAKE_CLI_DIR, 'replay-cli.mjs');

/** The backend each capture folder is of, and the model it ran with (the adapter sends the same requests). */
const CAPTURED: Record<string, { backend: string; model?: string }> = {
  claude: { backend: 'claude-code', model: 'claude-sonnet-4-5' },
  codex: { backend: 'codex', model: 'gpt-5.5' },
  opencode: { backend: 'opencode' },
  copilot: { backend: 'copilot' },
  droid: { backend: 'droid', model: 'custom:Scripted-0' },
  gemini: { backend: 'gemini', model: 'gemini-2.5-pro' },
};

let definitions: DefinitionSet | undefined;

/**
 * A session of the packaged backend whose CLI is the replay of a real capture
 * (`cli-captures/<cli>/<name>.jsonl`): the adapter meets exactly the lines the real CLI sent.
 * `pace` replays the captured gaps scaled (see replay-cli.mjs).
 */
export async function replay(
  cli: string,
  name: string,
  options: { posture?: Posture; pace?: number; tuning?: Record<string, number> } = {},
): Promise<{ session: AgentSession; reader: EventReader; cwd: string }> {
  const home = await tempDir('neo-replay-home-');
  definitions ??= (await loadDefinitions({ cwd: home, home, noProject: true })).set;
  const { backend, model } = CAPTURED[cli]!;
  const definition = definitions.get('backend', backend)!;
  const cwd = await tempDir('neo-replay-cwd-');
  const transport = (await createTransport(definition))!;
  const session = await transport.start({
    sessionId: 'cs_replay',
    cwd,
    brief: `${name}: say something`,
    posture: options.posture ?? 'acceptEdits',
    descriptor: definition.data,
    ...defined({ model }),
    env: {
      PATH: process.env.PATH,
      HOME: join(home, 'home'),
      [binaryEnvVar(backend)]: fakeWithEnv(
        REPLAY,
        { REPLAY_CAPTURE: join(CAPTURES, cli, `${name}.jsonl`), REPLAY_PACE: String(options.pace ?? 0) },
        home,
      ),
    },
    options: { idleTimeoutMs: 20_000, startTimeoutMs: 20_000, killGraceMs: 1_000, ...options.tuning },
  });
  return { session, reader: new EventReader(session), cwd };
}
