import type { ProvisionMeta } from '../types';

/** A session's capabilities: detected (with tiers), applied, ignored with why, awaiting approval, token-scope notes. */
export function CapabilityFacts({ meta }: { meta: ProvisionMeta }) {
  return (
    <>
      <dt>capabilities</dt>
      <dd data-testid="capabilities">
        {meta.detected.length === 0
          ? 'none detected'
          : meta.detected.map((d) => `${d.id} (${meta.tiers[d.id] ?? d.tier})`).join(', ')}
        {meta.applied.length > 0 ? <div>applied: {meta.applied.join(', ')}</div> : null}
        {meta.ignored.map((i) => (
          <div key={`${i.capability}:${i.item}`} class="dim">
            ignored {i.capability}:{i.item} — {i.reason}
          </div>
        ))}
        {meta.awaitingApproval.length > 0 ? (
          <div class="caution">awaiting approval: {meta.awaitingApproval.join(', ')} (see Approvals)</div>
        ) : null}
        {meta.tokenScopeNotes.map((note) => (
          <div key={note} class="caution">
            {note}
          </div>
        ))}
      </dd>
    </>
  );
}
