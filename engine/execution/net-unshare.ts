/**
 * A command that runs without the network inside a sandbox that has it: a nested bubblewrap
 * that unshares only the network namespace (the command sees a loopback that is down) and shows
 * the sandbox's own view otherwise (`--dev-bind / /` of that view: its read-only host stays
 * read-only — the outer sandbox's mounts are locked — its binds, hidden trees and private /tmp
 * stay as they are). A provisioned MCP server whose catalog entry does not ask for the network
 * runs this way, while the CLI that starts it keeps the network it needs for its model.
 */
import { findOwnProgram } from '../util/own-programs.js';
import { BWRAP } from './sandbox-bwrap.js';

export function withoutNetwork(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    findOwnProgram(BWRAP, env.PATH) ?? BWRAP,
    '--dev-bind',
    '/',
    '/',
    '--unshare-net',
    '--die-with-parent',
    '--',
    ...argv,
  ];
}
