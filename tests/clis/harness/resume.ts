import { expect } from 'vitest';
import type { Definition } from '../../../engine/definitions/index.js';
import { lastOf } from '../../contract/event-reader.js';
import type { ServedModel } from './model-serve.js';
import { startSession } from './session.js';

/**
 * Resume by the CLI's own session id. Where it works, the resumed session answers and the model
 * sees the earlier conversation in its request. Where the CLI cannot resume, the start must fail
 * with TRANSPORT_RESUME_UNSUPPORTED instead of silently starting afresh. When what happens differs
 * from the descriptor's `resume.supported`, a warning says so (the descriptor should follow).
 */
export async function checkResume(
  backend: Definition<'backend'>,
  options: Parameters<typeof startSession>[1],
  model: ServedModel,
  expected: { reply: string; remembers: string } | 'unsupported',
): Promise<void> {
  const claimed = backend.data.resume?.supported === true;
  if ((expected !== 'unsupported') !== claimed) {
    console.warn(
      `*** descriptor ${backend.id}: resume.supported is ${claimed}, but the real CLI ${expected === 'unsupported' ? 'cannot resume' : 'resumes'} through the adapter`,
    );
  }
  if (expected === 'unsupported') {
    await expect(startSession(backend, options)).rejects.toMatchObject({ code: 'TRANSPORT_RESUME_UNSUPPORTED' });
    return;
  }
  const resumed = await startSession(backend, options);
  try {
    expect(lastOf(await resumed.reader.untilType('turn_complete'), 'turn_complete').text).toBe(expected.reply);
    expect(JSON.stringify(model.mainRequests().at(-1)!.body)).toContain(expected.remembers);
  } finally {
    await resumed.session.stop();
  }
}
