import { resolve } from 'node:path';
import type { StartInput } from '../../engine/session/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { sessionOp } from '../session/client.js';
import { readMcpConfig } from './mcp-config.js';

interface Options {
  brief: string;
  backend?: string;
  script?: string;
  cwd?: string;
  maxPosture?: string;
  posture?: string;
  maxRounds?: string;
  model?: string;
  effort?: string;
  tag?: string[];
  allowedTools?: string[];
  mcpConfig?: string;
  resume?: string;
  json?: boolean;
}

export async function run(io: CommandIO, options: Options): Promise<number> {
  // The op parser validates every field (postures, effort, …) with the same loud errors.
  const input: Record<string, unknown> = {
    op: 'start',
    brief: options.brief,
    cwd: resolve(io.cwd, options.cwd ?? '.'),
  };
  if (options.backend !== undefined) input.backend = options.backend;
  if (options.maxPosture !== undefined) input.maxPosture = options.maxPosture;
  if (options.posture !== undefined) input.initialPosture = options.posture;
  if (options.maxRounds !== undefined) input.maxRounds = wholeNumber('--max-rounds', options.maxRounds);
  if (options.model !== undefined) input.agentModel = options.model;
  if (options.effort !== undefined) input.effort = options.effort;
  if (options.tag !== undefined) input.taskTags = options.tag;
  if (options.resume !== undefined) input.resumeSessionId = options.resume;
  if (options.allowedTools !== undefined)
    input.allowedTools = options.allowedTools
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter(Boolean);
  if (options.script !== undefined) input.backendOptions = { script: resolve(io.cwd, options.script) };
  if (options.mcpConfig !== undefined) input.mcpServers = await readMcpConfig(io.cwd, options.mcpConfig);
  const result = await sessionOp(io, input as unknown as StartInput);
  if (options.json) {
    writeJson(io.stdout, result);
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  writeLine(io.stdout, result.sessionId);
  writeLine(
    io.stderr,
    p.dim(
      `started on ${result.backend} · posture ${result.posture} (ceiling ${result.maxPosture}) · at most ${result.maxRounds} rounds`,
    ),
  );
  writeLine(io.stderr, p.dim(`next: neo session read ${result.sessionId}`));
  return EXIT.ok;
}

function wholeNumber(flag: string, value: string): number {
  if (!/^[0-9]+$/.test(value))
    throw new UsageError('CLI_BAD_OPTION', `${flag} expects a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}
