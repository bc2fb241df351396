import type { Backend, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';

type PostureTarget = NonNullable<Backend['postureMap'][Posture]>;

/** An ACP SessionMode as agents announce it in `modes.availableModes`. */
export interface AcpMode {
  id: string;
  name?: string;
}

/** Mode ids agents commonly use for each posture, tried when the descriptor names none. */
const KNOWN_MODES: Record<Posture, string[]> = {
  plan: ['plan', 'spec', 'read-only'],
  default: ['default', 'manual', 'agent', 'normal', 'ask'],
  acceptEdits: ['acceptEdits', 'autoEdit', 'auto_edit', 'auto-low', 'auto'],
  full: ['bypassPermissions', 'yolo', 'full-access', 'autopilot', 'auto-high'],
};

/**
 * The agent mode id for a posture: the descriptor's postureMap mode, else its `modes` entry,
 * else a well-known id among the agent's availableModes. A mode the agent does not offer is an
 * error (fail closed); undefined means the agent has no modes and the posture is enforced only
 * by how neo answers its permission asks.
 */
export function resolveModeId(
  backendId: string,
  posture: Posture,
  target: PostureTarget,
  descriptorModes: Record<string, string> | undefined,
  available: readonly AcpMode[],
): string | undefined {
  const wanted = target.mode ?? descriptorModes?.[posture];
  if (wanted !== undefined) {
    if (available.length === 0) return wanted;
    const match =
      available.find((m) => m.id === wanted) ??
      available.find((m) => m.id.endsWith(`#${wanted}`) || m.id.endsWith(`/${wanted}`));
    if (match !== undefined) return match.id;
    throw unsupported(
      backendId,
      posture,
      `mode "${wanted}" is not among the agent's modes (${available.map((m) => m.id).join(', ')})`,
    );
  }
  if (available.length === 0) return undefined;
  for (const candidate of KNOWN_MODES[posture]) {
    const match = available.find((m) => m.id === candidate || m.id.endsWith(`#${candidate}`));
    if (match !== undefined) return match.id;
  }
  throw unsupported(
    backendId,
    posture,
    `no mode for it among the agent's modes (${available.map((m) => m.id).join(', ')}); name one in the descriptor's postureMap`,
  );
}

function unsupported(backendId: string, posture: Posture, why: string): NeoError {
  return new NeoError('TRANSPORT_POSTURE_UNSUPPORTED', `${backendId} cannot express posture ${posture}: ${why}`);
}
