/** neo's built-in tools, and selecting them by name (or by the names Claude Code personas use). */
import { pinProtected } from '../../execution/index.js';
import { AgentError } from '../errors.js';
import type { AgentTool } from '../tool.js';
import type { Skill } from '../context/skills.js';
import { editTool } from './edit.js';
import { execTool } from './exec.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readFileTool } from './read-file.js';
import { bashOutputTool, killShellTool } from './shell-tools.js';
import type { BackgroundShells } from './shells.js';
import type { CommandSandbox } from './shell-env.js';
import { loadSkillTool } from './skill-tool.js';
import { writeFileTool } from './write-file.js';
import { defined } from '../../util/defined.js';

export { BackgroundShells, type ShellInfo } from './shells.js';
export { postureApprover, toolAsk, type AskPermission, type GateReport } from './posture.js';
export { commandEnv, type CommandSandbox } from './shell-env.js';
export { globToRegExp } from './glob-match.js';
export { findRipgrep } from './grep.js';

export interface BuiltinToolOptions {
  cwd: string;
  /** The environment commands run with (already the allowlist: commandEnv). */
  env: NodeJS.ProcessEnv;
  shells: BackgroundShells;
  /** Where commands run (the session's sandbox); absent: unconfined. */
  sandbox?: CommandSandbox;
  execTimeoutMs: number;
  skills?: readonly Skill[];
  /** The ripgrep binary; null forces the pure-Node search. */
  ripgrep?: string | null;
}

/** Every built-in tool, in a stable order. load_skill is included only when there are skills. */
export function builtinTools(options: BuiltinToolOptions): AgentTool[] {
  // What the sandbox protects below the workspace, known by identity before any command can move it.
  pinProtected(options.sandbox, options.cwd);
  const tools = [
    readFileTool(options.cwd),
    writeFileTool(options.cwd, options.sandbox),
    editTool(options.cwd, options.sandbox),
    execTool({
      cwd: options.cwd,
      env: options.env,
      shells: options.shells,
      timeoutMs: options.execTimeoutMs,
      ...defined({ sandbox: options.sandbox }),
    }),
    bashOutputTool(options.shells),
    killShellTool(options.shells),
    grepTool({ cwd: options.cwd, ...defined({ ripgrep: options.ripgrep }) }),
    globTool(options.cwd),
  ];
  if (options.skills !== undefined && options.skills.length > 0) tools.push(loadSkillTool(options.skills));
  return tools;
}

/** Claude Code tool names (as personas list them) → neo's tools. */
export const TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  Read: ['read_file'],
  Write: ['write_file'],
  Edit: ['edit'],
  MultiEdit: ['edit'],
  Bash: ['exec', 'bash_output', 'kill_shell'],
  BashOutput: ['bash_output'],
  KillShell: ['kill_shell'],
  Grep: ['grep'],
  Glob: ['glob'],
  LS: ['glob'],
  Skill: ['load_skill'],
};

/**
 * The tools `allowed` names (all when absent), minus those `disallowed` names. A name that is
 * neither a tool nor an alias is rejected, never silently dropped.
 */
export function selectTools(
  tools: readonly AgentTool[],
  allowed?: readonly string[],
  disallowed?: readonly string[],
): AgentTool[] {
  const known = new Set(tools.map((t) => t.spec.name));
  const expand = (names: readonly string[], field: string): Set<string> => {
    const out = new Set<string>();
    for (const name of names) {
      const targets = known.has(name) ? [name] : TOOL_ALIASES[name];
      if (targets === undefined) {
        throw new AgentError('AGENT_UNKNOWN_TOOL', `${field} names "${name}", which the neo agent does not have`, {
          hint: `neo's tools: ${[...known].join(', ')}; Claude Code names ${Object.keys(TOOL_ALIASES).join(', ')} are mapped to them`,
        });
      }
      for (const target of targets) out.add(target);
    }
    return out;
  };
  const allow = allowed !== undefined ? expand(allowed, 'allowedTools') : undefined;
  const deny = disallowed !== undefined ? expand(disallowed, 'disallowedTools') : new Set<string>();
  return tools.filter((t) => (allow === undefined || allow.has(t.spec.name)) && !deny.has(t.spec.name));
}
