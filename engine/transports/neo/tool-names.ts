/**
 * allowedTools / disallowedTools for a neo session name the built-in tools and the tools the
 * session adds (task, workflow), also by the Claude Code names personas use (Task, TodoWrite).
 * The built-in names go to selectTools; the session's own are decided here.
 */
const SESSION_TOOLS: Readonly<Record<string, string>> = {
  task: 'task',
  Task: 'task',
  workflow: 'workflow',
  TodoWrite: 'workflow',
};

export interface ToolNameSplit {
  /** What selectTools gets (undefined: no list given). */
  allowed?: string[];
  disallowed?: string[];
  /** Whether the session adds its tool of this name. */
  keep(name: string): boolean;
}

export function splitToolNames(allowed?: readonly string[], disallowed?: readonly string[]): ToolNameSplit {
  const own = (names: readonly string[] | undefined) =>
    names === undefined
      ? undefined
      : new Set(names.flatMap((n) => (SESSION_TOOLS[n] !== undefined ? [SESSION_TOOLS[n]] : [])));
  const rest = (names: readonly string[] | undefined) => names?.filter((n) => SESSION_TOOLS[n] === undefined);
  const allow = own(allowed);
  const deny = own(disallowed) ?? new Set<string>();
  const split: ToolNameSplit = {
    // restore_context belongs to the pruner, not to a persona's list.
    keep: (name) => name === 'restore_context' || ((allow === undefined || allow.has(name)) && !deny.has(name)),
  };
  const a = rest(allowed);
  const d = rest(disallowed);
  if (a !== undefined) split.allowed = a;
  if (d !== undefined) split.disallowed = d;
  return split;
}
