import type { RunDetail } from '../types';

const W = 168;
const H = 46;
const GAP_X = 36;
const GAP_Y = 44;

/**
 * The run's step graph — the nodes and edges `neo flow graph` draws — laid out top-down: a
 * step's row is the longest chain of needs above it; finally steps sit below the rest; each
 * node is coloured by its state.
 */
export function StepGraph({
  detail,
  selected,
  onSelect,
}: {
  detail: RunDetail;
  selected?: string;
  onSelect: (id: string) => void;
}) {
  const { nodes, edges } = detail.graph;
  const row = new Map<string, number>();
  const needs = new Map<string, string[]>();
  for (const e of edges) if (!e.dashed) needs.set(e.to, [...(needs.get(e.to) ?? []), e.from]);
  const depth = (id: string, seen = new Set<string>()): number => {
    if (row.has(id)) return row.get(id)!;
    if (seen.has(id)) return 0;
    seen.add(id);
    const d = Math.max(-1, ...(needs.get(id) ?? []).map((n) => depth(n, seen))) + 1;
    row.set(id, d);
    return d;
  };
  const main = nodes.filter((n) => n.group !== 'finally');
  main.forEach((n) => depth(n.id));
  const last = Math.max(-1, ...main.map((n) => row.get(n.id)!));
  nodes.filter((n) => n.group === 'finally').forEach((n) => row.set(n.id, Math.max(last + 1, depth(n.id))));
  const rows: string[][] = [];
  for (const n of nodes) (rows[row.get(n.id)!] ??= []).push(n.id);
  const widest = Math.max(1, ...rows.map((r) => r?.length ?? 0));
  const width = widest * (W + GAP_X) + GAP_X;
  const pos = new Map<string, { x: number; y: number }>();
  rows.forEach((ids, r) => {
    const offset = (width - ids.length * (W + GAP_X) + GAP_X) / 2;
    ids.forEach((id, i) => pos.set(id, { x: offset + i * (W + GAP_X), y: GAP_Y / 2 + r * (H + GAP_Y) }));
  });
  const height = rows.length * (H + GAP_Y);
  const status = (id: string) => shownStatus(detail, detail.state?.steps[id]?.status ?? 'pending');
  return (
    <svg
      class="graph"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="img"
      aria-label="step graph"
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
        </marker>
      </defs>
      {edges.map((e) => {
        const a = pos.get(e.from);
        const b = pos.get(e.to);
        if (a === undefined || b === undefined) return null;
        const x1 = a.x + W / 2;
        const y1 = a.y + H;
        const x2 = b.x + W / 2;
        const y2 = b.y;
        const mid = (y1 + y2) / 2;
        return (
          <path
            key={`${e.from}-${e.to}`}
            d={`M ${x1} ${y1} C ${x1} ${mid}, ${x2} ${mid}, ${x2} ${y2}`}
            class={`edge${e.dashed ? ' dashed' : ''}`}
            marker-end="url(#arrow)"
          />
        );
      })}
      {nodes.map((n) => {
        const p = pos.get(n.id)!;
        const [title, subtitle] = n.label.split('\n');
        return (
          <g
            key={n.id}
            class={`node st-${status(n.id)}${selected === n.id ? ' selected' : ''}${n.group === 'finally' ? ' finally' : ''}`}
            transform={`translate(${p.x} ${p.y})`}
            onClick={() => onSelect(n.id)}
            data-step={n.id}
            data-status={status(n.id)}
          >
            <rect width={W} height={H} rx="8" />
            <text x={12} y={19} class="node-title">
              {title}
            </text>
            <text x={12} y={36} class="node-sub">
              {subtitle} · {status(n.id)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/**
 * A unit's status as a person should read it: a run that stopped (interrupted, failed) leaves
 * the units it was running marked running in its state — they resume from there — but nothing
 * runs them now, so they read `interrupted`.
 */
export function shownStatus(detail: RunDetail, status: string): string {
  const runStatus = detail.state?.status ?? detail.record.status;
  const stopped = !detail.live && runStatus !== 'running';
  return stopped && (status === 'running' || status === 'waiting') ? 'interrupted' : status;
}
