import type { Persona } from '../generated/persona.js';
import type { Definition } from './definition.js';
import { toList } from '../util/string-list.js';
import type { SessionKnobs } from './policy.js';
import type { Posture } from '../generated/common.js';
import { defined } from '../util/defined.js';

/** Claude Code's permissionMode → neo posture. */
export const PERMISSION_MODE_POSTURE: Record<NonNullable<Persona['permissionMode']>, Posture> = {
  plan: 'plan',
  default: 'default',
  manual: 'default',
  dontAsk: 'default',
  acceptEdits: 'acceptEdits',
  auto: 'acceptEdits',
  bypassPermissions: 'full',
};

/** Claude Code model aliases → neo model classes. */
const CLAUDE_MODEL_CLASS: Record<string, string> = { haiku: 'cheap', sonnet: 'standard', opus: 'frontier' };

/** A persona with Claude Code's spellings read into neo's knobs. */
export interface PersonaView {
  id: string;
  description: string;
  instructions: string;
  driver: boolean;
  decide: 'rules' | 'llm' | 'human';
  policy?: string;
  /** A concrete model id or class sentinel; undefined for `inherit` or none. */
  model?: string;
  /** The persona's own knobs (before its policy, owner policy or a caller narrow them). */
  knobs: SessionKnobs;
  disallowedTools?: string[];
  taskTags: string[];
}

/**
 * Reads a persona definition the way neo uses it: `tools` (Claude) or `allowedTools` become the
 * tool list, `permissionMode` becomes the initial posture, `maxTurns` becomes maxRounds, and
 * Claude's model aliases become classes.
 */
export function personaView(definition: Definition<'persona'>): PersonaView {
  const data = definition.data;
  const knobs: SessionKnobs = {};
  if (data.maxPosture !== undefined) knobs.maxPosture = data.maxPosture;
  const initial =
    data.initialPosture ??
    (data.permissionMode === undefined ? undefined : PERMISSION_MODE_POSTURE[data.permissionMode]);
  if (initial !== undefined) knobs.initialPosture = initial;
  const rounds = data.maxRounds ?? data.maxTurns;
  if (rounds !== undefined) knobs.maxRounds = rounds;
  if (data.backend !== undefined) knobs.backend = data.backend;
  const tools = toList(data.allowedTools) ?? toList(data.tools);
  if (tools !== undefined) knobs.allowedTools = tools;
  if (data.budgets !== undefined) knobs.budgets = data.budgets;
  const model =
    data.model === undefined || data.model === 'inherit' ? undefined : (CLAUDE_MODEL_CLASS[data.model] ?? data.model);
  const disallowed = toList(data.disallowedTools);
  return {
    id: definition.id,
    description: data.description,
    instructions: (definition.body ?? '').trim(),
    driver: data.driver === true,
    decide: data.decide ?? 'rules',
    ...defined({ policy: data.policy, model }),
    knobs,
    ...defined({ disallowedTools: disallowed }),
    taskTags: data.taskTags ?? [],
  };
}
