import type { Posture } from '../../definitions/index.js';
import { resolvePaths } from '../../execution/index.js';
import { decideAsk, type AskDecision, type ToolAsk } from '../../posture/index.js';

/** What a tool call does, as far as postures care. Anything unclassified counts as `execute`. */
export type ToolClass = 'read' | 'edit' | 'execute';

/** How neo answers a permission ask under a posture, before any driver sees it. */
export type GateDecision = { kind: 'ask' } | { kind: 'allow' } | { kind: 'deny'; reason: string };

/**
 * The second half of "the ceiling is enforced twice": whatever mode the CLI runs in, its
 * permission asks are answered within the posture. plan denies anything but reads; acceptEdits
 * lets edits through; full lets everything through; default asks about everything.
 */
export function gateToolAsk(posture: Posture, toolClass: ToolClass, toolName: string): GateDecision {
  switch (posture) {
    case 'plan':
      return toolClass === 'read'
        ? { kind: 'ask' }
        : {
            kind: 'deny',
            reason: `posture plan forbids ${toolClass === 'edit' ? 'file edits' : 'running commands'} (${toolName})`,
          };
    case 'default':
      return { kind: 'ask' };
    case 'acceptEdits':
      return toolClass === 'execute' ? { kind: 'ask' } : { kind: 'allow' };
    case 'full':
      return { kind: 'allow' };
  }
}

const READ_TOOLS = new Set([
  'Read',
  'Grep',
  'Glob',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'NotebookRead',
  'ToolSearch',
]);
const DEFAULT_EDIT_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];

/** Classifies a tool by name: the descriptor's editToolNames are edits, known read-only tools are reads. */
export function classifyToolName(name: string, editToolNames: readonly string[] | undefined): ToolClass {
  if ((editToolNames ?? DEFAULT_EDIT_TOOLS).includes(name)) return 'edit';
  if (READ_TOOLS.has(name)) return 'read';
  return 'execute';
}

/** Classifies an ACP ToolKind. */
export function classifyAcpKind(kind: unknown): ToolClass {
  switch (kind) {
    case 'read':
    case 'search':
    case 'think':
    case 'fetch':
      return 'read';
    case 'edit':
    case 'delete':
    case 'move':
      return 'edit';
    default:
      return 'execute';
  }
}

/**
 * The posture gate on a normalized ask (engine/posture decideAsk), its paths first resolved under
 * `cwd` (symlinks followed, engine/execution/paths.ts). CliSession.answerAsk calls this.
 */
export async function gateAsk(posture: Posture, ask: ToolAsk, cwd: string): Promise<AskDecision> {
  const { root, resolved } = await resolvePaths(cwd, ask.paths);
  return decideAsk(posture, ask, { root, resolved });
}
