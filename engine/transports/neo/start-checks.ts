/** What a neo session refuses before it starts (or switches): a posture or effort its descriptor cannot express. */
import type { Effort, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import type { StartSessionOptions } from '../types.js';

/** Fail closed: a posture the descriptor cannot express is refused. */
export function checkPosture(backendId: string, options: StartSessionOptions, posture: Posture): void {
  if (options.descriptor.postureMap[posture] === undefined) {
    throw new NeoError('TRANSPORT_POSTURE_UNSUPPORTED', `${backendId} does not support posture ${posture}`, {
      hint: `its postureMap lists: ${Object.keys(options.descriptor.postureMap).join(', ')}`,
    });
  }
}

/** An effort outside the descriptor's levels is rejected loudly. */
export function checkEffort(backendId: string, options: StartSessionOptions, effort: Effort | undefined): void {
  if (effort === undefined) return;
  const levels = options.descriptor.effortSupport?.levels ?? [];
  if (!levels.includes(effort)) {
    throw new NeoError('AGENT_EFFORT_UNSUPPORTED', `${backendId} does not accept effort ${effort}`, {
      hint: levels.length > 0 ? `accepted: ${levels.join(', ')}` : 'this backend cannot set effort',
    });
  }
}
