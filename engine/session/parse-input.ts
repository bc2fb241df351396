/**
 * Loud parsing of op input: every field is checked for type and every unknown field is an error
 * (with a did-you-mean), so a driver's typo never silently widens or drops a request.
 */
import type { Effort, Posture } from '../definitions/index.js';
import { EFFORTS, POSTURES, isPosture } from '../posture/index.js';
import { didYouMean } from '../util/did-you-mean.js';
import { OPS, STOP_OUTCOMES, type CodeSessionInput, type CodeSessionOpName, type StopOutcome } from './contract.js';
import { SessionRejection, badInput } from './errors.js';
import type { SessionSandbox } from '../transports/index.js';

/** The fields each op accepts besides `op`. */
const FIELDS: Record<CodeSessionOpName, readonly string[]> = {
  start: [
    'brief',
    'maxPosture',
    'initialPosture',
    'backend',
    'cwd',
    'agentModel',
    'effort',
    'maxRounds',
    'allowedTools',
    'appendSystemPrompt',
    'resumeSessionId',
    'taskTags',
    'backendOptions',
    'sandbox',
    'mcpServers',
  ],
  'read-turn': ['sessionId', 'includeDiff'],
  answer: ['sessionId', 'clarificationId', 'allow', 'reason', 'note'],
  guide: ['sessionId', 'text', 'agentModel', 'effort'],
  'set-posture': ['sessionId', 'posture'],
  interrupt: ['sessionId'],
  stop: ['sessionId', 'outcome', 'note'],
  'list-backends': [],
  undo: ['sessionId'],
  reset: ['sessionId'],
  checklist: ['sessionId'],
  'list-sessions': ['cwd', 'backend', 'limit'],
};

/** Parses one op request; throws SESSION_BAD_INPUT / SESSION_UNKNOWN_OP naming the problem. */
export function parseOpInput(input: unknown): CodeSessionInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw badInput('input', `expected an object with an \`op\` field, got ${describe(input)}`);
  }
  const record = input as Record<string, unknown>;
  const op = record.op;
  if (typeof op !== 'string') throw badInput('op', `expected one of ${OPS.join(', ')}, got ${describe(op)}`);
  if (!(OPS as readonly string[]).includes(op)) {
    const guess = didYouMean(op, OPS);
    throw new SessionRejection('SESSION_UNKNOWN_OP', `unknown op \`${op}\``, {
      hint: guess !== undefined ? `did you mean \`${guess}\`?` : `ops are ${OPS.join(', ')}`,
    });
  }
  const name = op as CodeSessionOpName;
  for (const key of Object.keys(record)) {
    if (key === 'op' || FIELDS[name].includes(key)) continue;
    const guess = didYouMean(key, FIELDS[name]);
    throw badInput(
      key,
      `unknown field for op \`${name}\``,
      guess !== undefined
        ? `did you mean \`${guess}\`?`
        : `\`${name}\` takes ${FIELDS[name].join(', ') || 'no fields'}`,
    );
  }
  const f = new Fields(record);
  switch (name) {
    case 'start': {
      const parsed: CodeSessionInput = { op: 'start', brief: f.text('brief') };
      assignDefined(parsed, {
        maxPosture: f.posture('maxPosture'),
        initialPosture: f.posture('initialPosture'),
        backend: f.optionalText('backend'),
        cwd: f.optionalText('cwd'),
        agentModel: f.optionalText('agentModel'),
        effort: f.effort('effort'),
        maxRounds: f.positiveInt('maxRounds'),
        allowedTools: f.stringList('allowedTools', { nonEmpty: true }),
        appendSystemPrompt: f.optionalString('appendSystemPrompt'),
        resumeSessionId: f.optionalText('resumeSessionId'),
        taskTags: f.stringList('taskTags', { nonEmpty: false }),
        backendOptions: f.object('backendOptions'),
        sandbox: sandboxInput(f.object('sandbox')),
        mcpServers: mcpServersInput(f.object('mcpServers')),
      });
      return parsed;
    }
    case 'read-turn':
      return assignDefined({ op: 'read-turn', sessionId: f.text('sessionId') }, { includeDiff: f.bool('includeDiff') });
    case 'answer': {
      const allow = f.bool('allow');
      if (allow === undefined) throw badInput('allow', 'required: true to allow the tool call, false to deny it');
      return assignDefined(
        { op: 'answer', sessionId: f.text('sessionId'), clarificationId: f.text('clarificationId'), allow },
        { reason: f.optionalString('reason'), note: f.optionalString('note') },
      );
    }
    case 'guide':
      return assignDefined(
        { op: 'guide', sessionId: f.text('sessionId'), text: f.text('text') },
        { agentModel: f.optionalText('agentModel'), effort: f.effort('effort') },
      );
    case 'set-posture': {
      const posture = f.posture('posture');
      if (posture === undefined) throw badInput('posture', `required: one of ${POSTURES.join(', ')}`);
      return { op: 'set-posture', sessionId: f.text('sessionId'), posture };
    }
    case 'interrupt':
      return { op: 'interrupt', sessionId: f.text('sessionId') };
    case 'stop':
      return assignDefined(
        { op: 'stop', sessionId: f.text('sessionId') },
        { outcome: f.outcome('outcome'), note: f.optionalString('note') },
      );
    case 'list-backends':
      return { op: 'list-backends' };
    case 'undo':
    case 'reset':
    case 'checklist':
      return { op: name, sessionId: f.text('sessionId') };
    case 'list-sessions':
      return assignDefined(
        { op: 'list-sessions' as const },
        { cwd: f.optionalText('cwd'), backend: f.optionalText('backend'), limit: f.positiveInt('limit') },
      );
  }
}

/** Typed readers over one input record; each throws naming its field. */
class Fields {
  constructor(private readonly record: Record<string, unknown>) {}

  text(key: string): string {
    const value = this.record[key];
    if (value === undefined) throw badInput(key, 'required');
    if (typeof value !== 'string' || value.trim() === '')
      throw badInput(key, `expected a non-empty string, got ${describe(value)}`);
    return value;
  }

  optionalText(key: string): string | undefined {
    return this.record[key] === undefined ? undefined : this.text(key);
  }

  optionalString(key: string): string | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw badInput(key, `expected a string, got ${describe(value)}`);
    return value;
  }

  bool(key: string): boolean | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw badInput(key, `expected true or false, got ${describe(value)}`);
    return value;
  }

  positiveInt(key: string): number | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
      throw badInput(key, `expected a whole number ≥ 1, got ${describe(value)}`);
    return value;
  }

  posture(key: string): Posture | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (!isPosture(value)) {
      const guess = typeof value === 'string' ? didYouMean(value, POSTURES) : undefined;
      throw badInput(
        key,
        `expected one of ${POSTURES.join(', ')}, got ${describe(value)}`,
        guess !== undefined ? `did you mean \`${guess}\`?` : undefined,
      );
    }
    return value;
  }

  effort(key: string): Effort | undefined {
    return this.oneOf(key, EFFORTS);
  }

  outcome(key: string): StopOutcome | undefined {
    return this.oneOf(key, STOP_OUTCOMES);
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      const guess = typeof value === 'string' ? didYouMean(value, values) : undefined;
      throw badInput(
        key,
        `expected one of ${values.join(', ')}, got ${describe(value)}`,
        guess !== undefined ? `did you mean \`${guess}\`?` : undefined,
      );
    }
    return value as T;
  }

  stringList(key: string, { nonEmpty }: { nonEmpty: boolean }): string[] | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
      throw badInput(key, `expected a list of non-empty strings, got ${describe(value)}`);
    }
    if (nonEmpty && value.length === 0)
      throw badInput(key, 'an empty list allows nothing; omit the field to use the defaults');
    return [...new Set(value as string[])];
  }

  object(key: string): Record<string, unknown> | undefined {
    const value = this.record[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw badInput(key, `expected an object, got ${describe(value)}`);
    return value as Record<string, unknown>;
  }
}

/**
 * MCP servers by name, each an object: what each backend makes of one (and why it ignores one it
 * cannot use) is the backend's to say, in the session's provision record.
 */
function mcpServersInput(servers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (servers === undefined) return undefined;
  for (const [name, server] of Object.entries(servers))
    if (typeof server !== 'object' || server === null || Array.isArray(server))
      throw badInput(
        `mcpServers.${name}`,
        `expected an object ({command, args, env} or {type, url, headers}), got ${describe(server)}`,
      );
  return servers;
}

/** Copies the defined values of `extra` onto `target` (optional fields stay absent, not undefined). */
function assignDefined<T extends object>(target: T, extra: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(extra))
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** A start's `sandbox`: checked whole (it decides what the agent's CLI can see and write). */
function sandboxInput(value: Record<string, unknown> | undefined): SessionSandbox | undefined {
  if (value === undefined) return undefined;
  const bad = (why: string) => badInput('sandbox', why);
  const { kind, binds, hide, network, maxProcesses, env } = value;
  if (kind !== 'none' && kind !== 'bwrap') throw bad('`kind` must be none or bwrap');
  if (typeof network !== 'boolean') throw bad('`network` must be true or false');
  const absolute = (p: unknown): p is string => typeof p === 'string' && p.startsWith('/') && !p.includes('\0');
  if (!Array.isArray(hide) || !hide.every(absolute)) throw bad('`hide` must be a list of absolute paths');
  if (!Array.isArray(binds)) throw bad('`binds` must be a list');
  if (maxProcesses !== undefined && !(Number.isInteger(maxProcesses) && (maxProcesses as number) > 0))
    throw bad('`maxProcesses` must be a positive whole number');
  const parsed = binds.map((b: unknown) => {
    const bind = (typeof b === 'object' && b !== null ? b : {}) as Record<string, unknown>;
    if (!absolute(bind.path) || (bind.at !== undefined && !absolute(bind.at)))
      throw bad('each bind needs an absolute `path` (and `at`, when given)');
    return {
      path: bind.path,
      ...(bind.write === true ? { write: true } : {}),
      ...(bind.optional === true ? { optional: true } : {}),
      ...(typeof bind.at === 'string' ? { at: bind.at } : {}),
    };
  });
  if (env !== undefined && !isEnvMap(env)) throw bad('`env` must map variable names to strings');
  return {
    kind,
    binds: parsed,
    hide: [...hide],
    network,
    ...(maxProcesses === undefined ? {} : { maxProcesses: maxProcesses as number }),
    ...(env === undefined ? {} : { env: { ...env } }),
  };
}

/** `{ NAME: value }` with shell variable names and string values (a sandbox's `env`). */
function isEnvMap(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(
    ([name, text]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && typeof text === 'string' && !text.includes('\0'),
  );
}
