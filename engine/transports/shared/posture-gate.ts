import type { Posture } from '../../definitions/index.js';
import { resolvePaths } from '../../execution/index.js';
import { decideAsk, type AskDecision, type ToolAsk } from '../../posture/index.js';

/**
 * The transports' half of "the ceiling is enforced twice": whatever mode the CLI runs in, each
 * permission ask its adapter has read into a ToolAsk is decided by the posture module
 * (engine/posture decideAsk), its paths first resolved under `cwd` (symlinks followed,
 * engine/execution/paths.ts). CliSession.answerAsk calls this.
 */
export async function gateAsk(
  posture: Posture,
  ask: ToolAsk,
  cwd: string,
  agentConfig: readonly string[] = [],
): Promise<AskDecision> {
  const { root, resolved } = await resolvePaths(cwd, ask.paths);
  return decideAsk(posture, ask, { root, resolved, agentConfig });
}
