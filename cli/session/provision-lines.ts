/** The capability lines of a session record (`neo sessions show`) and of a dry run's step. */
import type { ProvisionMeta } from '../../engine/capabilities/index.js';
import type { painter } from '../io.js';

type Paint = ReturnType<typeof painter>;

export function provisionLines(meta: ProvisionMeta, p: Paint, indent = '  '): string[] {
  const pad = (label: string) => `${indent}${label.padEnd(10)}`;
  const lines: string[] = [];
  const detected = meta.detected.map((d) => `${d.id} (${meta.tiers[d.id] ?? d.tier})`);
  lines.push(`${pad('detected')}${detected.length > 0 ? detected.join(', ') : 'none'}`);
  if (meta.applied.length > 0) lines.push(`${pad('applied')}${meta.applied.join(', ')}`);
  for (const item of meta.ignored) lines.push(`${pad('ignored')}${item.capability}:${item.item} — ${item.reason}`);
  if (meta.awaitingApproval.length > 0)
    lines.push(
      p.yellow(
        `${pad('awaiting')}${meta.awaitingApproval.join(', ')} (approval requested: neo capabilities approve <id>)`,
      ),
    );
  for (const note of meta.tokenScopeNotes) lines.push(p.yellow(`${pad('token')}${note}`));
  return lines;
}
