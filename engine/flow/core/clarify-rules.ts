import type { Posture } from '../../definitions/index.js';

/** A permission question an agent asked mid-turn. */
export interface Ask {
  toolName: string;
  input: unknown;
}

/** What the built-in rules need to know to answer one. */
export interface ClarifyRules {
  /** The session's ceiling: what the posture would allow. */
  posture: Posture;
  /** The workspace folder (absolute, POSIX); edits must stay inside it. */
  workspace: string;
  /** Tool names that edit files on this backend. */
  editToolNames: readonly string[];
  /** Commands the agent may run: exact, or a prefix ending in `*`. */
  allowCommands: readonly string[];
}

export interface AskDecision {
  allow: boolean;
  reason: string;
}

const EDIT_TOOLS = [
  'Edit',
  'Write',
  'MultiEdit',
  'NotebookEdit',
  'apply_patch',
  'write_file',
  'edit_file',
  'replace',
  'fileChange',
  'write',
  'edit',
  'delete',
  'rename',
];
const COMMAND_TOOLS = [
  'run',
  'Bash',
  'bash',
  'shell',
  'exec',
  'exec_command',
  'commandExecution',
  'execute',
  'run_shell_command',
  'local_shell',
];

/**
 * The built-in answer to a clarification, used until a driving persona decides instead: allow a
 * file edit inside the workspace when the posture allows edits, allow a command only when it is
 * in the allow list (or the posture is `full`), deny everything else — always with a reason the
 * agent can act on.
 */
export function decideAsk(ask: Ask, rules: ClarifyRules): AskDecision {
  const full = rules.posture === 'full';
  if (rules.editToolNames.includes(ask.toolName) || EDIT_TOOLS.includes(ask.toolName)) {
    if (rules.posture === 'plan')
      return { allow: false, reason: 'this step runs in posture plan: it may read and plan, never edit files' };
    const paths = editPaths(ask.input);
    if (paths.length === 0)
      return { allow: false, reason: `cannot tell which file ${ask.toolName} edits; name the file path explicitly` };
    const outside = paths.find((path) => !isInside(rules.workspace, path));
    if (outside !== undefined && !full)
      return {
        allow: false,
        reason: `${outside} is outside the workspace ${rules.workspace}; edit only files inside it`,
      };
    return { allow: true, reason: `edit inside the workspace (${paths.join(', ')})` };
  }
  if (COMMAND_TOOLS.includes(ask.toolName)) {
    const command = commandOf(ask.input);
    if (full) return { allow: true, reason: 'posture full allows every command' };
    if (rules.posture === 'plan')
      return { allow: false, reason: 'this step runs in posture plan: it may not run commands' };
    if (command !== undefined && commandAllowed(command, rules.allowCommands))
      return { allow: true, reason: `\`${command}\` is in the step's allowed commands` };
    const listed =
      rules.allowCommands.length > 0
        ? `allowed: ${rules.allowCommands.map((c) => `\`${c}\``).join(', ')}`
        : 'no commands are allowed in this step';
    return {
      allow: false,
      reason: `\`${command ?? '(unreadable command)'}\` is not an allowed command (${listed}); add it to the step's allowCommands if it is needed`,
    };
  }
  if (full) return { allow: true, reason: 'posture full allows every tool' };
  return {
    allow: false,
    reason: `${ask.toolName} is not allowed by neo's default rules: only file edits inside the workspace and the step's allowed commands are`,
  };
}

/** Whether a command matches the allow list (exact after collapsing spaces, or a `prefix*`). */
export function commandAllowed(command: string, allow: readonly string[]): boolean {
  const normal = collapse(command);
  return allow.some((entry) => {
    const rule = collapse(entry);
    return rule.endsWith('*') ? normal.startsWith(rule.slice(0, -1)) : normal === rule;
  });
}

function collapse(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

function commandOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (input === null || typeof input !== 'object') return undefined;
  const command = (input as Record<string, unknown>).command ?? (input as Record<string, unknown>).cmd;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) return command.join(' ');
  return undefined;
}

/** Every file path an edit names: path-like keys, codex `changes[]`, apply_patch headers. */
export function editPaths(input: unknown): string[] {
  const out: string[] = [];
  if (input === null || typeof input !== 'object') return out;
  const record = input as Record<string, unknown>;
  for (const key of ['path', 'file_path', 'filePath', 'notebook_path', 'from', 'to']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') out.push(value);
  }
  if (Array.isArray(record.changes))
    for (const change of record.changes)
      if (change !== null && typeof change === 'object' && typeof (change as { path?: unknown }).path === 'string')
        out.push((change as { path: string }).path);
  for (const key of ['patch', 'input']) {
    const patch = record[key];
    if (typeof patch !== 'string') continue;
    for (const match of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) out.push(match[1]!.trim());
  }
  return [...new Set(out)];
}

/** Whether `path` (absolute, or relative to `root`) stays inside `root` once `.` and `..` are resolved. */
export function isInside(root: string, path: string): boolean {
  const base = normalize(root);
  const target = normalize(path.startsWith('/') ? path : `${base}/${path}`);
  return target === base || target.startsWith(base === '/' ? '/' : `${base}/`);
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}
