/**
 * The ids a path may carry, checked against neo's one validator per kind (engine/util/ids.ts)
 * before anything reaches the store: `..`, a slash, an encoded slash or a NUL never becomes part
 * of a file path under NEO_HOME. A bad id is a 400 in the envelope.
 */
import { ID_KINDS, isId, type IdKindName } from '../util/ids.js';
import { HttpError } from './envelope.js';

/** A path id: a session, a run (flow or persona), an approval step or question key. */
export type IdKind = IdKindName;

/** Whether `value` has the exact shape of an id of `kind`. */
export function isIdOf(kind: IdKind, value: string): boolean {
  return isId(kind, value);
}

/** `value`, or a 400 naming the shape it should have had. */
export function checkedId(kind: IdKind, value: string | undefined): string {
  if (value === undefined || !isId(kind, value))
    throw new HttpError(400, 'SERVER_BAD_ID', `\`${printable(value ?? '')}\` is not ${ID_KINDS[kind].noun}`, {
      hint: `${ID_KINDS[kind].noun} looks like ${ID_KINDS[kind].example}`,
    });
  return value;
}

function printable(value: string): string {
  const cut = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return cut.replace(/[^\x20-\x7e]/g, '?');
}
