/** The system prompt, skills and tools a neo session starts with. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agentsMdSection,
  BackgroundShells,
  buildSystemPrompt,
  builtinTools,
  connectMcpServers,
  secretRedactor,
  discoverAgentsMd,
  discoverSkills,
  commandEnv,
  selectTools,
  skillCatalog,
  type AgentSettings,
  type AgentTool,
  type McpSetup,
  type Skill,
} from '../../agent/index.js';
import { findRepoRoot } from '../../definitions/index.js';
import { realRoot } from '../../execution/index.js';
import type { StartSessionOptions } from '../types.js';
import { splitToolNames } from './tool-names.js';
import { defined } from '../../util/defined.js';
import { packageVersion } from '../../util/package-root.js';

export interface SessionContext {
  system: string;
  skills: Skill[];
  tools: AgentTool[];
  shells: BackgroundShells;
  /** The session's MCP servers (absent: it was started with none). */
  mcp: McpSetup | undefined;
  /** The real working directory the file tools are confined to. */
  root: string;
  /** Whether allowedTools/disallowedTools leave the session's own tool of this name (task, workflow). */
  keepTool: (name: string) => boolean;
}

export async function sessionContext(
  options: StartSessionOptions,
  settings: AgentSettings,
  home: string,
  baseEnv: NodeJS.ProcessEnv,
  ripgrep: string | null | undefined,
): Promise<SessionContext> {
  const repo = findRepoRoot(options.cwd, { exclude: home });
  const [agentsMd, skills] = await Promise.all([
    discoverAgentsMd(repo, options.cwd),
    discoverSkills([join(home, 'skills'), join(repo, '.neo', 'skills'), ...(options.provision?.skillDirs ?? [])]),
  ]);
  const system = buildSystemPrompt({
    cwd: options.cwd,
    ...defined({ append: options.appendSystemPrompt, instructions: options.provision?.instructions }),
    agentsMd: agentsMdSection(agentsMd),
    skills: skillCatalog(skills),
  });
  // Shell logs hold whatever a command printed, secrets included, so they are never kept: they
  // live in a private temp folder removed when the session stops (the transcript keeps the
  // redacted output the model read).
  const shells = new BackgroundShells(await mkdtemp(join(tmpdir(), 'neo-shells-')), { removeDir: true });
  // The tools confine every path to the real working directory (a symlinked cwd included).
  const root = await realRoot(options.cwd);
  const all = builtinTools({
    cwd: root,
    // The allowlist, never neo's environment: the agent's own key and every other secret stay out.
    env: commandEnv(baseEnv),
    shells,
    execTimeoutMs: settings.execTimeoutMs,
    skills,
    // exec and background shells run in the session's sandbox, like every command of the run.
    ...defined({ ripgrep, sandbox: options.sandbox }),
  });
  const mcp = await mcpServers(options, settings, root, baseEnv);
  try {
    const names = splitToolNames(options.allowedTools, options.disallowedTools);
    const tools = selectTools([...all, ...(mcp?.tools ?? [])], names.allowed, names.disallowed);
    return { system, skills, tools, shells, mcp, root, keepTool: names.keep };
  } catch (error) {
    await mcp?.close();
    throw error;
  }
}

/**
 * The servers the session was started with, connected: each runs like one of the agent's
 * commands (its cwd, its sandbox, the allowlisted environment plus what its own `env` lists),
 * and its stderr goes to `<sessionDir>/mcp/<server>.stderr.log`.
 */
async function mcpServers(
  options: StartSessionOptions,
  settings: AgentSettings,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<McpSetup | undefined> {
  const servers = options.provision?.mcpServers ?? {};
  if (Object.keys(servers).length === 0) return undefined;
  return connectMcpServers(servers, {
    cwd,
    env,
    redact: secretRedactor(settings.secrets, env),
    version: packageVersion(),
    ...defined({
      sandbox: options.sandbox,
      logDir: options.sessionDir === undefined ? undefined : join(options.sessionDir, 'mcp'),
    }),
  });
}
