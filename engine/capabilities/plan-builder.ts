/**
 * One session's provisioning plan for one backend, materialized under the session's own folder
 * (`<sessionDir>/provision/`, never in the repository): the MCP servers in the backend's shape,
 * the skills copied from the commit cache, the instructions. What the backend cannot take is
 * left out here, with the reason, so the record says why and the transport is never handed
 * something it would drop silently.
 */
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Backend } from '../definitions/index.js';
import { withoutNetwork } from '../execution/index.js';
import { wireMcpServers, type ProvisionPlan } from '../transports/index.js';
import type { CuratedMcpServer } from '../posture/index.js';
import { errorMessage } from '../util/errors.js';
import type { CatalogEntry } from './catalog.js';
import { codexServer, expandedServer, referencedVars, transportOf, type ServerShape } from './mcp-shapes.js';
import { cachedSkill } from './skill-cache.js';
import type { SkillFetcher } from './skill-fetcher.js';

export type Protocol = Backend['protocol'];

/** Something of a capability left out of a session, and why. */
export interface IgnoredItem {
  capability: string;
  item: string;
  reason: string;
}

export interface PlanInput {
  home: string;
  protocol: Protocol;
  entries: readonly CatalogEntry[];
  sessionDir: string;
  env: NodeJS.ProcessEnv;
  /** The session's sandbox: `confined` when it is one (bwrap), and whether it has the network. */
  sandbox?: { network: boolean; confined?: boolean };
  fetchSkill?: SkillFetcher;
  /** How a builtin entry's `neo` command runs: this neo (its node and its bin). */
  neoCommand: { command: string; args: string[] };
  /** False: say what would be handed over, write and fetch nothing (`neo flow run --dry-run`). */
  materialize?: boolean;
}

export interface BuiltPlan {
  /** Undefined when nothing is handed to the transport. */
  plan: ProvisionPlan | undefined;
  /** `<capability>:<item>` handed over (`neo-memory:mcp:neo-memory`, `prisma:skill:prisma-cli`). */
  applied: string[];
  ignored: IgnoredItem[];
}

const SCRIPT_REASON = 'the script backend replays its script: it runs no MCP server, skill or instructions';

export function provisionDir(sessionDir: string): string {
  return join(sessionDir, 'provision');
}

/** Builds and materializes the plan. Never throws for one capability's trouble: that item is ignored, with why. */
export async function buildProvisionPlan(input: PlanInput): Promise<BuiltPlan> {
  const dir = provisionDir(input.sessionDir);
  const applied: string[] = [];
  const ignored: IgnoredItem[] = [];
  const servers: Record<string, ServerShape | Record<string, unknown>> = {};
  const curated: Record<string, CuratedMcpServer> = {};
  const envNames = new Set<string>();
  const skillDirs: string[] = [];
  const instructions: string[] = [];
  const skillsRoot = input.protocol === 'claude-code' ? join(dir, 'claude-plugin', 'skills') : join(dir, 'skills');

  for (const entry of input.entries) {
    const ignore = (item: string, reason: string) => ignored.push({ capability: entry.id, item, reason });
    const provides = entry.data.provides;
    for (const [name, raw] of Object.entries(provides.mcpServers ?? {})) {
      const item = `mcp:${name}`;
      const why = serverRefusal(input, entry, raw as ServerShape);
      if (why !== undefined) {
        ignore(item, why);
        continue;
      }
      if (servers[name] !== undefined) {
        ignore(item, `another capability already provides an MCP server named ${name}`);
        continue;
      }
      const server = offlineUnlessAsked(entry, withNeoCommand(entry, raw as ServerShape, input), input);
      if (input.protocol === 'codex') {
        const codex = codexServer(server);
        if ('reason' in codex) {
          ignore(item, codex.reason);
          continue;
        }
        servers[name] = codex.table;
      } else servers[name] = input.protocol === 'acp' ? expandedServer(server, input.env) : server;
      curated[name] = server.readOnly === undefined ? {} : { readOnly: server.readOnly };
      applied.push(`${entry.id}:${item}`);
      referencedVars(server).forEach((name) => envNames.add(name));
    }
    for (const skill of provides.skills ?? []) {
      const item = `skill:${skill}`;
      const why = skillRefusal(input.protocol, entry);
      if (why !== undefined) {
        ignore(item, why);
        continue;
      }
      if (input.materialize === false) {
        applied.push(`${entry.id}:${item}`);
        continue;
      }
      try {
        if (input.fetchSkill === undefined) throw new Error('no skill fetcher is configured');
        const source = { repo: entry.data.source.repo!, commit: entry.data.source.commitSha!, path: skill };
        const cached = await cachedSkill(input.home, source, input.fetchSkill);
        const target = join(skillsRoot, basename(skill));
        await cp(cached, target, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
        skillDirs.push(target);
        applied.push(`${entry.id}:${item}`);
      } catch (error) {
        ignore(item, `not fetched: ${errorMessage(error)}`);
      }
    }
    if (provides.instructions !== undefined && provides.instructions.trim() !== '') {
      if (input.protocol === 'script') ignore('instructions', SCRIPT_REASON);
      else {
        instructions.push(`## ${entry.data.displayName ?? entry.id}\n\n${provides.instructions.trim()}`);
        applied.push(`${entry.id}:instructions`);
      }
    }
  }

  if (applied.length === 0 || input.materialize === false) return { plan: undefined, applied, ignored };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const plan: ProvisionPlan = { dir };
  if (Object.keys(servers).length > 0) {
    plan.mcpServers = servers;
    plan.curatedMcp = curated;
    if (envNames.size > 0) plan.envNames = [...envNames].sort();
    if (input.protocol === 'claude-code') {
      plan.mcpConfigFile = join(dir, 'mcp.json');
      await writeFile(plan.mcpConfigFile, `${JSON.stringify({ mcpServers: wireMcpServers(servers) }, null, 2)}\n`, {
        mode: 0o600,
      });
    }
  }
  if (skillDirs.length > 0) {
    plan.skillDirs = skillDirs;
    if (input.protocol === 'claude-code') {
      plan.pluginDir = join(dir, 'claude-plugin');
      const manifest = {
        name: 'neo-provisioned',
        description: 'Skills neo provisioned for this session',
        version: '1.0.0',
      };
      await mkdir(join(plan.pluginDir, '.claude-plugin'), { recursive: true });
      await writeFile(join(plan.pluginDir, '.claude-plugin', 'plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    }
  }
  if (instructions.length > 0) {
    plan.instructions = `# Capabilities neo provisioned for this project\n\n${instructions.join('\n\n')}`;
    await writeFile(join(dir, 'instructions.md'), `${plan.instructions}\n`, { mode: 0o600 });
  }
  return { plan, applied, ignored };
}

/** Removes a session's materialized plan (at release). */
export async function removeProvisionDir(sessionDir: string): Promise<void> {
  await rm(provisionDir(sessionDir), { recursive: true, force: true });
}

function serverRefusal(input: PlanInput, entry: CatalogEntry, server: ServerShape): string | undefined {
  if (input.protocol === 'script') return SCRIPT_REASON;
  const kind = transportOf(server);
  const missing = (entry.data.authEnv ?? []).filter((name) => (input.env[name] ?? '') === '');
  if (missing.length > 0)
    return `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set in the session's environment`;
  const unlisted = referencedVars(server).filter((name) => !(entry.data.authEnv ?? []).includes(name));
  if (unlisted.length > 0)
    return `it refers to ${unlisted.join(', ')}, which the entry's authEnv does not list (secrets come only from listed variables)`;
  const needsNetwork = kind !== 'stdio' || entry.data.network === true;
  if (input.sandbox !== undefined && !input.sandbox.network && needsNetwork)
    return `it needs the network and this session's sandbox has none`;
  return undefined;
}

function skillRefusal(protocol: Protocol, entry: CatalogEntry): string | undefined {
  if (protocol === 'script') return SCRIPT_REASON;
  if (protocol === 'codex') return 'Codex has no per-session skills folder (it reads skills from its own home only)';
  if (protocol === 'acp') return 'the Agent Client Protocol has no way to hand an agent a skill';
  const s = entry.data.source;
  if (s.kind !== 'github' || s.repo === undefined || s.commitSha === undefined)
    return 'skills come from a GitHub source pinned to a commit; this entry has none';
  return undefined;
}

/**
 * In a confined sandbox with the network, a stdio server whose entry does not ask for it runs
 * without it (a nested network namespace, engine/execution net-unshare.ts): the CLI keeps the
 * network for its model, the server gets only what its entry says.
 */
function offlineUnlessAsked(entry: CatalogEntry, server: ServerShape, input: PlanInput): ServerShape {
  const box = input.sandbox;
  if (box?.confined !== true || !box.network || entry.data.network === true) return server;
  if (transportOf(server) !== 'stdio' || server.command === undefined) return server;
  const [command, ...args] = withoutNetwork([server.command, ...(server.args ?? [])], input.env);
  return { ...server, command: command!, args };
}

/** A builtin entry's `neo …` server runs this neo, with this NEO_HOME. */
function withNeoCommand(entry: CatalogEntry, server: ServerShape, input: PlanInput): ServerShape {
  if (entry.data.source.kind !== 'builtin' || server.command !== 'neo') return server;
  return {
    ...server,
    command: input.neoCommand.command,
    args: [...input.neoCommand.args, ...(server.args ?? [])],
    env: { ...(server.env ?? {}), NEO_HOME: input.home },
  };
}
