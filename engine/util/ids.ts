/**
 * Every kind of id neo puts in a path (a run's folder, a session's folder, an approval's file)
 * and its exact pattern: the one validator per kind that commands and stores use before an id
 * touches the file system. An id that does not match is a usage error, never a path: no `/`,
 * no `..`, no NUL can reach `join`.
 */
import { UsageError } from './errors.js';

/** A definition id (persona, policy, step, decision): the schemas' `id`. */
const DEFINITION_ID = '[A-Za-z0-9][A-Za-z0-9._-]*';

interface IdKind {
  /** What the user reads: "a run id". */
  noun: string;
  /** The whole id. */
  exact: RegExp;
  /** What a command accepts where "a unique prefix is enough" (undefined: no prefixes). */
  prefix?: RegExp;
  example: string;
  code: string;
}

export const ID_KINDS = {
  /**
   * A flow run (`20260130-142501-3fa9c2`, a sub-flow's `<parent>.<unit>.<iteration>-<attempt>`)
   * or a persona run (`persona-<persona>-<token>`), whose questions live beside approvals.
   */
  run: {
    noun: 'a run id',
    exact: new RegExp(`^(?:\\d{8}-\\d{6}-[0-9a-f]{6}(?:\\.[\\w-]+\\.\\d+-\\d+)*|persona-${DEFINITION_ID}-[0-9a-z]+)$`),
    prefix: /^(?:\d[\w.-]*|persona-[\w.-]*)$/,
    example: '20260130-142501-3fa9c2',
    code: 'FLOW_BAD_RUN_ID',
  },
  /** A code session: `cs_` and 256 random bits in base64url. */
  session: {
    noun: 'a session id',
    exact: /^cs_[A-Za-z0-9_-]{43}$/,
    prefix: /^(?:c|cs|cs_[A-Za-z0-9_-]{0,43})$/,
    example: 'cs_3q2…',
    code: 'SESSION_BAD_ID',
  },
  /**
   * What `neo flow approve <run> <key>` answers: an approval step (`ship`, `ship[2]` for a
   * foreach item) or a persona's question (`fix-q1`, `fix[2]-q1`).
   */
  approval: {
    noun: 'an approval step',
    exact: new RegExp(`^${DEFINITION_ID}(?:\\[\\d+\\])?(?:-q\\d+)?$`),
    example: 'ship, or ship[2] for a foreach item',
    code: 'FLOW_BAD_APPROVAL_KEY',
  },
} as const satisfies Record<string, IdKind>;

export type IdKindName = keyof typeof ID_KINDS;

/** Whether `value` is a whole id of `kind`. */
export function isId(kind: IdKindName, value: unknown): value is string {
  return typeof value === 'string' && ID_KINDS[kind].exact.test(value);
}

/** `value` when it is a whole id of `kind`; a usage error naming the expected shape otherwise. */
export function checkId(kind: IdKindName, value: string): string {
  if (isId(kind, value)) return value;
  throw badId(kind, value, false);
}

/** `value` when it is a whole id of `kind` or may start one (for "a unique prefix is enough"). */
export function checkIdOrPrefix(kind: 'run' | 'session', value: string): string {
  if (isId(kind, value) || ID_KINDS[kind].prefix.test(value)) return value;
  throw badId(kind, value, true);
}

function badId(kind: IdKindName, value: string, prefix: boolean): UsageError {
  const spec: IdKind = ID_KINDS[kind];
  return new UsageError(
    spec.code,
    `${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)} is not ${spec.noun}`,
    { hint: `${spec.noun} looks like ${spec.example}${prefix ? ' (or a unique prefix of one)' : ''}` },
  );
}
