/**
 * The session record's `provision` after the transport said what it did with the plan (its
 * `provision` event): an item neo planned but the backend left out (an HTTP server an ACP agent
 * does not advertise, a server neo's agent could not start, a skill folder with no skill in it)
 * moves from applied to ignored, with the transport's reason. The plan alone is what neo meant;
 * the record says what the backend took. Pure.
 */
import type { ProvisionMeta } from './provision.js';

/** What a transport reported: its items are `mcp:<name>`, `skill:<folder>`, `instructions`. */
export interface TransportProvision {
  applied: readonly string[];
  ignored: readonly string[];
  reasons?: Readonly<Record<string, string>>;
}

export function acknowledgeProvision(meta: ProvisionMeta, report: TransportProvision): ProvisionMeta {
  const applied: string[] = [];
  const ignored = [...meta.ignored];
  for (const planned of meta.applied) {
    const at = planned.indexOf(':');
    const capability = planned.slice(0, at);
    const item = planned.slice(at + 1);
    const dropped = report.ignored.find((reported) => sameItem(item, reported));
    if (dropped === undefined) applied.push(planned);
    else
      ignored.push({
        capability,
        item,
        reason: report.reasons?.[dropped] ?? 'the backend did not take it (it gave no reason)',
      });
  }
  return { ...meta, applied, ignored, acknowledged: true };
}

/** A plan item and a transport's: skills by their folder's last name (the plan copies them under the session's folder). */
function sameItem(planned: string, reported: string): boolean {
  if (planned === reported) return true;
  if (!planned.startsWith('skill:') || !reported.startsWith('skill:')) return false;
  return lastName(planned) === lastName(reported);
}

function lastName(item: string): string {
  return item.replace(/\/+$/, '').split('/').at(-1) ?? item;
}
