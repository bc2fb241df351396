/**
 * The rules a persona without its own `rules:` block is driven by — every non-driver persona
 * run as the driven agent's role, and a driver that writes none: file edits inside the working
 * directory are allowed (under any backend's edit tool name), everything else is refused with a
 * reason the agent can act on. Data, like a persona's own rules.
 */
import type { PersonaRules } from './clarify-rules.js';

/** Edit tool names across backends (neo and script, Claude Code, codex, ACP agents). */
export const EDIT_TOOL_NAMES = [
  'write',
  'edit',
  'delete',
  'rename',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'apply_patch',
  'fileChange',
  'create',
  'Create',
  'replace',
  'write_file',
  'edit_file',
];

export const DEFAULT_RULES: PersonaRules = {
  clarify: [{ decision: 'allow', tool: EDIT_TOOL_NAMES, path: '**' }],
  otherwise: 'deny',
};

/** A persona's rules, filled with the defaults for what it leaves out. */
export function rulesWithDefaults(rules: PersonaRules | undefined): PersonaRules {
  if (rules === undefined) return DEFAULT_RULES;
  return { ...rules, clarify: rules.clarify ?? DEFAULT_RULES.clarify!, otherwise: rules.otherwise ?? 'deny' };
}
