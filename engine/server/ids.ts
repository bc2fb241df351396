/**
 * The exact shapes of the ids a path may carry. An id is checked before it reaches the store, so
 * `..`, a slash, an encoded slash or a NUL never becomes part of a file path under NEO_HOME.
 */
import { isSessionId } from '../session/index.js';
import { HttpError } from './envelope.js';

/** A flow run (`20260130-142501-3fa9c2`) or a sub-flow's (`<parent>.<step>.<iteration>-<attempt>`). */
const FLOW_RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}(?:\.[A-Za-z0-9_-]+\.\d+-\d+){0,16}$/;
/** The run a persona outside a flow files its questions under (`persona-<id>-<suffix>`). */
const PERSONA_RUN_ID = /^persona-[A-Za-z0-9][A-Za-z0-9._-]{0,190}$/;
/** A step id, a foreach unit (`fix[2]`), or a persona question key (`fix[2]-q1`). */
const APPROVAL_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}(?:\[\d{1,6}\])?(?:-[A-Za-z0-9._-]{1,64})?$/;

export type IdKind = 'session' | 'run' | 'approval-run' | 'approval-key';

const CHECKS: Record<IdKind, (value: string) => boolean> = {
  session: isSessionId,
  run: (v) => FLOW_RUN_ID.test(v),
  'approval-run': (v) => FLOW_RUN_ID.test(v) || PERSONA_RUN_ID.test(v),
  'approval-key': (v) => APPROVAL_KEY.test(v),
};

const NAMES: Record<IdKind, string> = {
  session: 'a code-session id (cs_ and 43 base64url characters)',
  run: 'a flow run id (YYYYMMDD-HHMMSS-xxxxxx)',
  'approval-run': 'a flow run id or a persona run id',
  'approval-key': 'a step id or question key',
};

/** Whether `value` has the exact shape of an id of `kind`. */
export function isIdOf(kind: IdKind, value: string): boolean {
  return CHECKS[kind](value);
}

/** `value`, or a 400 naming the shape it should have had. */
export function checkedId(kind: IdKind, value: string | undefined): string {
  if (value === undefined || !CHECKS[kind](value))
    throw new HttpError(400, 'SERVER_BAD_ID', `\`${printable(value ?? '')}\` is not ${NAMES[kind]}`);
  return value;
}

function printable(value: string): string {
  const cut = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return cut.replace(/[^\x20-\x7e]/g, '?');
}
