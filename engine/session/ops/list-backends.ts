import type { Backend } from '../../definitions/index.js';
import { POSTURES } from '../../posture/index.js';
import type { Availability } from '../../transports/index.js';
import type { BackendDescriptorView, BackendListing, ListBackendsResult } from '../contract.js';
import { routingGuidanceLines } from '../../routing/index.js';
import type { OpContext } from './context.js';

/** A probe that takes longer than this counts as failed: list-backends must answer. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Every backend descriptor in the definition set with a live availability probe, its track
 * record (when history exists) and routing guidance. A throwing probe degrades to
 * `probe-failed`; it never fails the op.
 */
export async function listBackends(ctx: OpContext): Promise<ListBackendsResult> {
  const routings = ctx.definitions.list('routing').map((d) => ({ id: d.id, data: d.data }));
  const backends = await Promise.all(
    ctx.definitions.list('backend').map(async (definition): Promise<BackendListing> => {
      const backend: Backend = { ...definition.data, id: definition.id };
      const listing: BackendListing = {
        id: definition.id,
        descriptor: descriptorView(definition.id, backend),
        availability: await probe(ctx, definition.id),
      };
      const track = await trackRecord(ctx, definition.id);
      if (track !== undefined && track.length > 0) listing.trackRecord = track;
      listing.routingGuidance = routingGuidanceLines(backend, routings);
      return listing;
    }),
  );
  return { backends };
}

/** The descriptor a driver reads: capabilities, posture map, live control; no launch details. */
export function descriptorView(id: string, backend: Backend): BackendDescriptorView {
  const { command: _command, env: _env, pricing: _pricing, id: _id, ...rest } = backend;
  const view: BackendDescriptorView = {
    ...rest,
    id,
    postures: POSTURES.filter((p) => backend.postureMap[p] !== undefined),
  };
  for (const key of Object.keys(view)) if (key.startsWith('x-')) delete (view as Record<string, unknown>)[key];
  return view;
}

async function probe(ctx: OpContext, backendId: string): Promise<Availability> {
  try {
    const transport = await ctx.transports(backendId, ctx.definitions);
    if (transport === undefined)
      return {
        available: false,
        status: 'unsupported',
        detail: 'no transport adapter for this protocol in this build',
      };
    return await timeout(transport.probeAvailability(), PROBE_TIMEOUT_MS);
  } catch (error) {
    return { available: false, status: 'probe-failed', detail: error instanceof Error ? error.message : String(error) };
  }
}

async function trackRecord(ctx: OpContext, backendId: string): Promise<string[] | undefined> {
  if (ctx.trackRecord === undefined) return undefined;
  try {
    return await ctx.trackRecord(backendId);
  } catch (error) {
    ctx.log.warn('code_session_track_record_failed', { backendId, error });
    return undefined;
  }
}

function timeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the probe took longer than ${ms / 1000}s`)), ms);
    timer.unref();
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
