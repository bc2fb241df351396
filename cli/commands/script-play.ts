import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isPosture, underCeiling } from '../../engine/posture/index.js';
import { createTransport, type AgentEvent } from '../../engine/transports/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { interruptOnSignals } from '../flow/signals.js';

interface PlayOptions {
  cwd?: string;
  posture: string;
  brief: string;
  guide?: string[];
  answer: string;
  json?: boolean;
}

/**
 * Plays a script on the script backend (through the protocol table, with the `script`
 * descriptor), answering every clarification the same way and sending the --guide texts one per
 * turn. No session service and no store: this is for writing and debugging scripts.
 */
export async function run(io: CommandIO, file: string, options: PlayOptions): Promise<number> {
  if (!isPosture(options.posture))
    throw new UsageError('CLI_BAD_POSTURE', `unknown posture \`${options.posture}\``, {
      hint: 'plan, default, acceptEdits or full',
    });
  if (options.answer !== 'allow' && options.answer !== 'deny')
    throw new UsageError('CLI_BAD_ANSWER', `--answer must be allow or deny; got \`${options.answer}\``);
  const cwd = resolve(io.cwd, options.cwd ?? '.');
  if (
    !(await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new UsageError('CLI_BAD_CWD', `${cwd} is not a folder`);
  const { set } = await loadSetForCommand(io);
  // The owner policy caps a replay as it caps an agent (and an invalid one stops it).
  const ownerCap = set.ownerPolicy?.data.maxPosture;
  const capped =
    ownerCap === undefined
      ? undefined
      : underCeiling('--posture', options.posture, {
          posture: ownerCap,
          name: `the owner policy's maxPosture (${set.ownerPolicy!.file})`,
          hint: `pass --posture ${ownerCap} or lower`,
        });
  if (capped?.ok === false) throw new UsageError(capped.code, capped.message, { hint: capped.hint });
  const backend = set.list('backend').find((definition) => definition.data.protocol === 'script');
  const transport = backend === undefined ? undefined : await createTransport(backend);
  if (backend === undefined || transport === undefined)
    throw new UsageError('CLI_NO_SCRIPT_BACKEND', 'no backend with protocol `script` is defined', {
      hint: 'neo ships definitions/backends/script.yaml; check `neo backends list`',
    });
  // Ctrl-C as everywhere: the first stops the session, a second kills at once (and what it ran).
  // Taken before the start: the script may run a command before start() returns.
  const signals = interruptOnSignals(io);
  const session = await transport
    .start({
      sessionId: `play_${randomBytes(8).toString('hex')}`,
      cwd,
      brief: options.brief,
      posture: options.posture,
      descriptor: backend.data,
      options: { script: resolve(io.cwd, file) },
    })
    .catch((error: unknown) => {
      signals.dispose();
      throw error;
    });
  if (signals.signal.aborted) void session.stop();
  else signals.signal.addEventListener('abort', () => void session.stop(), { once: true });
  const allow = options.answer === 'allow';
  const guidance = [...(options.guide ?? [])];
  const print = printer(io, options.json === true);
  let failed = false;
  try {
    for await (const event of session.events) {
      print(event);
      if (event.type === 'clarify') {
        await session.answer(
          event.clarificationId,
          allow ? { allow } : { allow, reason: 'neo script play --answer deny' },
        );
      } else if (event.type === 'turn_complete' || (event.type === 'error' && event.fatal !== true)) {
        failed = event.type === 'error';
        const next = guidance.shift();
        if (next === undefined) break;
        await session.sendGuidance(next);
      } else if (event.type === 'ended') {
        failed = !event.ok;
        break;
      } else if (event.type === 'error') {
        failed = true;
      }
    }
  } finally {
    signals.dispose();
    await session.stop();
  }
  // A stopped stream is not a played script: Ctrl-C is an interruption, never a success.
  if (signals.signal.aborted) return EXIT.interrupted;
  return failed ? EXIT.failed : EXIT.ok;
}

function printer(io: CommandIO, json: boolean): (event: AgentEvent) => void {
  if (json) return (event) => writeLine(io.stdout, JSON.stringify(event));
  const p = painter(useColor(io.stdout, io.env));
  const tag = (name: string) => p.dim(name.padEnd(9));
  return (event) => {
    switch (event.type) {
      case 'started':
        return writeLine(io.stdout, `${tag('started')}${event.externalSessionId ?? ''} · model ${event.model ?? '?'}`);
      case 'text':
        return writeLine(io.stdout, `${tag('say')}${event.text}`);
      case 'reasoning':
        return writeLine(io.stdout, `${tag('think')}${p.dim(event.text)}`);
      case 'tool_use':
        return writeLine(io.stdout, `${tag('tool')}${event.id} ${p.bold(event.name)} ${JSON.stringify(event.input)}`);
      case 'tool_result':
        return writeLine(
          io.stdout,
          `${tag('result')}${event.id} ${event.isError ? p.red('error') : p.green('ok')}: ${event.output}`,
        );
      case 'clarify':
        return writeLine(io.stdout, `${tag('clarify')}${event.clarificationId} ${event.toolName}`);
      case 'turn_complete':
        return writeLine(
          io.stdout,
          `${tag('turn')}${event.numTurns ?? '?'} complete${event.interrupted ? ' (interrupted)' : ''}${figures(event)}`,
        );
      case 'ended':
        return writeLine(
          io.stdout,
          `${tag('ended')}${event.ok ? p.green('ok') : p.red('not ok')}${event.text === '' ? '' : `: ${event.text}`}${figures(event)}`,
        );
      case 'error':
        return writeLine(io.stdout, `${tag('error')}${p.red(event.code ?? 'error')}: ${event.message}`);
      case 'provision':
        return undefined;
    }
  };
}

function figures(event: { costUsd?: number; usage?: { inputTokens?: number; outputTokens?: number } }): string {
  const parts = [
    event.costUsd === undefined ? undefined : `$${event.costUsd}`,
    event.usage?.inputTokens === undefined ? undefined : `${event.usage.inputTokens} in`,
    event.usage?.outputTokens === undefined ? undefined : `${event.usage.outputTokens} out`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : ` · ${parts.join(' · ')}`;
}
