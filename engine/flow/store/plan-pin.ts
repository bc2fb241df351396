import { isAbsolute, relative, resolve } from 'node:path';
import { contentHash } from '../../util/content-hash.js';
import type { CompiledPlan } from '../core/plan.js';
import type { PinnedDefinition } from './run-files.js';

/** A stable hash of a compiled plan: what run.json's manifest and the event chain pin. */
export function planHash(plan: CompiledPlan): string {
  return contentHash(JSON.stringify(plan));
}

/**
 * What a durable run pins at its first start (`DurableRun.pinPlan`): the compiled plan and the
 * digests of the definitions it was compiled with that lie outside NEO_HOME and neo's own package
 * — the project's neo.yaml layers, its sub-flows, personas, backends and policies. A takeover
 * compiles again from the project's folder, and neither a provider's `baseUrl` nor a sub-flow's
 * steps are part of the parent's plan: a confined step (in `inplace` isolation the folder is the
 * checkout) that pointed the project's provider elsewhere, or rewrote a sub-flow not yet started,
 * before its worker died would otherwise have the survivor run the rewrite. A worker's own
 * NEO_HOME and neo's package are its own (no sandbox writes them, and they differ between
 * workers). `dotenv` is the digest of the trusted project's `.neo/.env` the start read
 * (runtime/dotenv-pin.ts `durableDotenvDigest`), which a confined step could rewrite the same way:
 * its `${NAME}` values are a provider's key, headers and routes. Without either it is the plan's hash.
 */
export function durablePinHash(
  plan: CompiledPlan,
  pinned: readonly PinnedDefinition[],
  own: { home: string; packageRoot: string; dotenv?: string },
): string {
  const outside = pinned
    .filter((pin) => pin.kind === 'config' || !(within(pin.file, own.home) || within(pin.file, own.packageRoot)))
    .map((pin) => [pin.kind, pin.id, pin.file, pin.digest]);
  const base =
    outside.length === 0 ? planHash(plan) : contentHash('durable-pin/1', planHash(plan), JSON.stringify(outside));
  return own.dotenv === undefined ? base : contentHash('durable-pin-dotenv/1', base, own.dotenv);
}

function within(file: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(file));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
