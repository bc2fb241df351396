import type { Backend, Posture } from '../../definitions/index.js';
import type { StartSessionOptions } from '../types.js';
import { wireMcpServers } from '../shared/mcp-wire.js';

type PostureTarget = NonNullable<Backend['postureMap'][Posture]>;

/** The flags that select bidirectional stream-json with the stdio permission prompt (used when the descriptor names none). */
export const PROTOCOL_ARGS = [
  '-p',
  '--input-format',
  'stream-json',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-prompt-tool',
  'stdio',
];

/**
 * A permission rule that makes every Bash call ask, in every mode (an ask rule outranks allow rules and the
 * mode's own auto-approvals: acceptEdits runs rm, mv and touch unasked, default runs what it judges
 * read-only). neo then decides each command by the step's allowCommands.
 */
export const ASK_EVERY_COMMAND = ['--settings', JSON.stringify({ permissions: { ask: ['Bash'] } })];

/**
 * Settings come from the CLI's own config home only, never from the workspace: a repository's
 * `.claude/settings.json` (or `settings.local.json`) would otherwise run its hooks — any command,
 * asked of no one, at any posture —, point the CLI at another model endpoint with its `env`, and
 * approve its own `.mcp.json` servers. The workspace is what the agent writes; nothing in it
 * configures the agent.
 */
export const USER_SETTINGS_ONLY = ['--setting-sources', 'user'];

/**
 * The repository's CLAUDE.md is instructions, not configuration: with the project's settings left
 * out it is read as an added directory's (CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD, set by the
 * descriptor's `env`), so Claude Code still follows it.
 */
export function instructionsFrom(cwd: string): string[] {
  return ['--add-dir', cwd];
}

/** What a start asks of the CLI beyond the protocol, and what provisioning it applied. */
export interface ClaudeArgs {
  args: string[];
  provision: { applied: string[]; ignored: string[]; reasons?: Record<string, string> } | undefined;
}

/**
 * The launch argv: the descriptor's protocol args (`command.args`, else {@link PROTOCOL_ARGS}),
 * then the session's flags. The permission mode is always passed explicitly: left out, some
 * CLI versions start in `auto`, where a model classifier answers asks instead of neo.
 */
export function buildClaudeArgs(options: StartSessionOptions, target: PostureTarget): ClaudeArgs {
  const protocol = options.descriptor.command?.args ?? PROTOCOL_ARGS;
  const args = [
    ...protocol,
    ...ASK_EVERY_COMMAND,
    ...USER_SETTINGS_ONLY,
    ...instructionsFrom(options.cwd),
    '--permission-mode',
    target.mode ?? 'default',
    ...(target.args ?? []),
  ];
  if (options.model !== undefined) args.push('--model', options.model);
  if (options.resumeSessionId !== undefined) args.push('--resume', options.resumeSessionId);
  if (options.allowedTools !== undefined && options.allowedTools.length > 0)
    args.push('--allowedTools', options.allowedTools.join(','));
  if (options.disallowedTools !== undefined && options.disallowedTools.length > 0)
    args.push('--disallowedTools', options.disallowedTools.join(','));

  const provision = options.provision;
  const applied: string[] = [];
  const ignored: string[] = [];
  const reasons: Record<string, string> = {};
  const prompt = [options.appendSystemPrompt, provision?.instructions].filter(
    (part): part is string => part !== undefined && part.trim() !== '',
  );
  if (prompt.length > 0) args.push('--append-system-prompt', prompt.join('\n\n'));
  if (provision?.instructions !== undefined && provision.instructions.trim() !== '') applied.push('instructions');
  const servers = provision?.mcpServers ?? {};
  if (Object.keys(servers).length > 0) {
    args.push('--mcp-config', provision?.mcpConfigFile ?? JSON.stringify({ mcpServers: wireMcpServers(servers) }));
    applied.push(...Object.keys(servers).map((name) => `mcp:${name}`));
  }
  if (provision?.pluginDir !== undefined && (provision.skillDirs ?? []).length > 0) {
    // A plugin folder is Claude Code's one per-session skill source (`--plugin-dir`): its skills/ holds them.
    args.push('--plugin-dir', provision.pluginDir);
    applied.push(...(provision.skillDirs ?? []).map((dir) => `skill:${dir}`));
  } else {
    // Claude Code loads skills from its own settings folders and plugins only; a loose directory is not a skill source.
    for (const dir of provision?.skillDirs ?? []) {
      ignored.push(`skill:${dir}`);
      reasons[`skill:${dir}`] = 'Claude Code takes skills only in a plugin folder, and this plan has none';
    }
  }
  return { args, provision: provision === undefined ? undefined : { applied, ignored, ...withReasons(reasons) } };
}

/**
 * Claude Code refuses bypassPermissions as root unless IS_SANDBOX=1, which neo sets only when it
 * confines the CLI itself. neo refuses first, with the reason, instead of letting the CLI die at
 * startup.
 */
export function bypassRefusal(
  mode: string | undefined,
  env: NodeJS.ProcessEnv,
  uid: number | undefined,
): string | undefined {
  if (mode !== 'bypassPermissions') return undefined;
  if (uid !== 0 || env.IS_SANDBOX === '1') return undefined;
  return 'Claude Code refuses bypassPermissions (posture full) when running as root; run neo as a normal user, or run the step under `sandbox: bwrap` (neo then tells Claude Code it is sandboxed; an IS_SANDBOX of your own is not passed on)';
}

/** `reasons` only when there are some. */
function withReasons(reasons: Record<string, string>): { reasons?: Record<string, string> } {
  return Object.keys(reasons).length === 0 ? {} : { reasons };
}
