import { neoBinPath } from '../util/package-root.js';

/** How a builtin `neo …` MCP server runs: this neo, with the node that runs it. */
export function neoCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [neoBinPath()] };
}

/** Whether capability curation runs (NEO_CAPABILITIES=off turns it off). */
export function capabilitiesEnabled(env: NodeJS.ProcessEnv): boolean {
  return !['off', '0', 'false', 'no'].includes((env.NEO_CAPABILITIES ?? '').trim().toLowerCase());
}
