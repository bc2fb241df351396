import { isAbsolute, resolve } from 'node:path';
import type { Definition } from '../../definitions/index.js';
import { confinedEnv } from '../../execution/index.js';
import { contentHash } from '../../util/content-hash.js';
import { UsageError } from '../../util/errors.js';
import { packageVersion } from '../../util/package-root.js';
import type { AgentSession, Availability, StartSessionOptions, Transport } from '../types.js';
import { checkScriptFile, checkScriptText, planOrThrow } from './load-script.js';
import { findProgress } from './progress.js';
import type { ScriptPlan } from './script-model.js';
import { ScriptSession } from './script-session.js';
import { Workspace } from './workspace.js';

/**
 * The `script` transport: no binary, no model. `start` loads the script named by
 * `options.script` (a path; relative paths resolve against the session's cwd) or given inline as
 * `options.scriptText`, validates it, and plays it against the real working tree.
 */
export class ScriptTransport implements Transport {
  readonly id: string;

  constructor(id = 'script') {
    this.id = id;
  }

  async probeAvailability(): Promise<Availability> {
    return {
      available: true,
      status: 'ok',
      version: packageVersion(),
      detail: 'built in: replays YAML scripts, needs no binary or credentials',
    };
  }

  async start(options: StartSessionOptions): Promise<AgentSession> {
    const plan = await loadPlan(options);
    let externalSessionId =
      plan.script.externalSessionId ?? `script-${contentHash(options.sessionId, plan.hash).slice(0, 16)}`;
    let nextTurn = 0;
    let turnsPlayed = 0;
    if (options.resumeSessionId !== undefined) {
      const progress = await findProgress(options.resumeSessionId, options.sessionDir);
      if (progress === undefined) {
        throw new UsageError(
          'TRANSPORT_SCRIPT_RESUME_UNKNOWN',
          `no script session ${options.resumeSessionId} to resume`,
          {
            hint: 'resume by the externalSessionId a script session reported in its started event',
          },
        );
      }
      if (progress.scriptHash !== plan.hash) {
        throw new UsageError(
          'TRANSPORT_SCRIPT_RESUME_MISMATCH',
          `script session ${options.resumeSessionId} played a different script (${progress.scriptFile})`,
          {
            hint: 'resume with the same script text; start a new session for a changed script',
          },
        );
      }
      externalSessionId = progress.externalSessionId;
      nextTurn = progress.nextTurn;
      turnsPlayed = progress.turnsPlayed;
    }
    const session: ConstructorParameters<typeof ScriptSession>[0] = {
      plan,
      workspace: new Workspace(options.cwd, options.sandbox),
      brief: options.brief,
      posture: options.posture,
      // Its commands are an agent's commands: the allowlist, never neo's environment, in any sandbox.
      env: confinedEnv(options.env ?? process.env, {
        ...(options.sandbox === undefined || options.sandbox.kind === 'none' ? {} : { set: options.sandbox.env ?? {} }),
      }),
      externalSessionId,
      model: plan.script.model ?? options.model ?? 'script',
      nextTurn,
      turnsPlayed,
    };
    if (options.sessionDir !== undefined) session.sessionDir = options.sessionDir;
    if (options.sandbox !== undefined) session.sandbox = options.sandbox;
    return new ScriptSession(session);
  }
}

async function loadPlan(options: StartSessionOptions): Promise<ScriptPlan> {
  const bag = options.options ?? {};
  const { scriptText } = bag as { scriptText?: unknown };
  let { script } = bag as { script?: unknown };
  if (script === undefined && scriptText === undefined && options.resumeSessionId !== undefined) {
    // A resume that names no script (the control plane's supervised resume) plays the one the
    // session played; the hash check below still refuses it if the file changed since.
    script = (await findProgress(options.resumeSessionId, options.sessionDir))?.scriptFile;
  }
  if (typeof scriptText === 'string')
    return planOrThrow(checkScriptText(scriptText, '<inline script>'), '<inline script>');
  if (typeof script === 'string' && script !== '') {
    const file = isAbsolute(script) ? script : resolve(options.cwd, script);
    return planOrThrow(await checkScriptFile(file), file);
  }
  throw new UsageError('TRANSPORT_SCRIPT_MISSING', 'the script backend needs a script to play', {
    hint: "in a flow, give the step `script: <file>` (a YAML script, relative to the plan's folder); by hand, `neo session start --backend script --script <file>`",
  });
}

/** Builds the script transport for its backend descriptor (the protocol table's factory). */
export function createScriptTransport(backend: Definition<'backend'>): Transport {
  return new ScriptTransport(backend.id);
}
