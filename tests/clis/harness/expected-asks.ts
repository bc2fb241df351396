import type { ToolAsk } from '../../../engine/posture/index.js';

/**
 * What neo must read out of each CLI's permission asks in the asks scenario, with the sandbox at
 * `/sandbox` (the workspace /sandbox/repo, another checkout /sandbox/checkout): the same table the
 * unit tests hold the captured fixtures to, and the conformance suite the live CLIs.
 */
export const EXPECTED_ASKS: Record<string, Partial<Record<'edit-inside' | 'edit-outside' | 'command', ToolAsk>>> = {
  'claude-code': {
    'edit-inside': { kind: 'edit', toolName: 'Write', paths: ['/sandbox/repo/inside.txt'] },
    'edit-outside': { kind: 'edit', toolName: 'Write', paths: ['/sandbox/checkout/escape.txt'] },
    command: { kind: 'execute', toolName: 'Bash', paths: ['/sandbox/repo/README.md'], command: 'rm README.md' },
  },
  codex: {
    'edit-inside': { kind: 'edit', toolName: 'fileChange', paths: ['/sandbox/repo/inside.txt'] },
    'edit-outside': { kind: 'edit', toolName: 'fileChange', paths: ['/sandbox/checkout/escape.txt'] },
    command: {
      kind: 'execute',
      toolName: 'commandExecution',
      paths: ['/sandbox/repo'],
      command: "/bin/bash -lc 'rm README.md'",
      argv: ['/bin/bash', '-lc', 'rm README.md'],
    },
  },
  opencode: {
    'edit-inside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/repo/inside.txt'] },
    // OpenCode asks about the folder first, as kind `other`: it is the write it is for.
    'edit-outside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/checkout/escape.txt', '/sandbox/checkout'] },
    command: { kind: 'execute', toolName: 'execute', paths: [], command: 'rm README.md' },
  },
  copilot: {
    'edit-inside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/repo/inside.txt'] },
    // Copilot asks "Access paths outside trusted directories" as kind `read`: it is the patch it is for.
    'edit-outside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/checkout/escape.txt'] },
    command: { kind: 'execute', toolName: 'execute', paths: [], command: 'rm README.md' },
  },
  droid: {
    'edit-inside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/repo/inside.txt'] },
    'edit-outside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/checkout/escape.txt'] },
    command: { kind: 'execute', toolName: 'execute', paths: [], command: 'rm README.md' },
  },
  // Gemini refuses a path outside its workspace itself and never asks about it.
  gemini: {
    'edit-inside': { kind: 'edit', toolName: 'edit', paths: ['/sandbox/repo/inside.txt'] },
    command: { kind: 'execute', toolName: 'execute', paths: [], command: 'rm README.md' },
  },
};
