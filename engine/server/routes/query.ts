import { HttpError } from '../envelope.js';

/** A non-negative integer query parameter, with a default and a ceiling; anything else is a 400. */
export function intParam(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,15}$/.test(value))
    throw new HttpError(400, 'SERVER_BAD_QUERY', `\`${name}\` must be a non-negative integer`);
  const n = Number(value);
  if (n > max) throw new HttpError(400, 'SERVER_BAD_QUERY', `\`${name}\` is at most ${max}`);
  return n;
}
