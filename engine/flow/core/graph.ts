import type { CompiledPlan, PlanStep } from './plan.js';

/** One node of the step graph: a step, with the label every drawing shows. */
export interface GraphNode {
  id: string;
  label: string;
  kind: PlanStep['kind'];
  group: PlanStep['group'];
}

/** One edge: `from` must finish before `to`; dashed edges lead into a `finally` step with no needs. */
export interface GraphEdge {
  from: string;
  to: string;
  dashed: boolean;
}

/**
 * The step graph as data: needs are edges, and a `finally` step with no needs hangs off every
 * leaf of the main graph. `neo flow graph` draws it as Mermaid or dot; the control plane sends it
 * to the web UI, which lays out the same nodes and edges.
 */
export function stepGraph(plan: CompiledPlan): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const main = plan.steps.filter((s) => s.group === 'main');
  const fin = plan.steps.filter((s) => s.group === 'finally');
  const needed = new Set(main.flatMap((s) => s.needs));
  const leaves = main.filter((s) => !needed.has(s.id));
  const nodes = [...main, ...fin].map((s) => ({ id: s.id, label: label(s), kind: s.kind, group: s.group }));
  const edges: GraphEdge[] = [];
  for (const step of [...main, ...fin]) {
    for (const need of step.needs) edges.push({ from: need, to: step.id, dashed: false });
    if (step.group === 'finally' && step.needs.length === 0)
      for (const leaf of leaves) edges.push({ from: leaf.id, to: step.id, dashed: true });
  }
  return { nodes, edges };
}

/** The step graph as Mermaid (`flowchart`) or Graphviz dot: needs are edges, finally steps dashed. */
export function renderGraph(plan: CompiledPlan, format: 'mermaid' | 'dot'): string {
  const graph = stepGraph(plan);
  return format === 'mermaid' ? mermaid(graph) : dot(plan.name, graph);
}

function label(step: PlanStep): string {
  const detail = step.kind === 'agent' ? `agent${step.agent?.backend ? ` · ${step.agent.backend}` : ''}` : step.kind;
  const extra = [step.foreach ? 'foreach' : '', step.loop ? 'loop' : '', step.if ? 'if' : ''].filter((x) => x !== '');
  return `${step.name ?? step.id}\n${detail}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
}

function mermaidId(id: string): string {
  return `s_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function mermaid({ nodes, edges }: { nodes: GraphNode[]; edges: GraphEdge[] }): string {
  const lines = ['flowchart TD'];
  const node = (n: GraphNode) => `${mermaidId(n.id)}["${n.label.replace(/"/g, '#quot;').replace(/\n/g, '<br/>')}"]`;
  const arrow = (e: GraphEdge) => `${mermaidId(e.from)} ${e.dashed ? '-.->' : '-->'} ${mermaidId(e.to)}`;
  const isFinally = new Set(nodes.filter((n) => n.group === 'finally').map((n) => n.id));
  for (const n of nodes) if (!isFinally.has(n.id)) lines.push(`  ${node(n)}`);
  for (const e of edges) if (!isFinally.has(e.to)) lines.push(`  ${arrow(e)}`);
  if (isFinally.size > 0) {
    lines.push('  subgraph finally');
    for (const n of nodes) if (isFinally.has(n.id)) lines.push(`    ${node(n)}`);
    lines.push('  end');
    for (const e of edges) if (isFinally.has(e.to)) lines.push(`  ${arrow(e)}`);
  }
  return `${lines.join('\n')}\n`;
}

function dot(name: string, { nodes, edges }: { nodes: GraphNode[]; edges: GraphEdge[] }): string {
  const q = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  const lines = [`digraph ${q(name)} {`, '  rankdir=TB;', '  node [shape=box, style=rounded];'];
  for (const n of nodes)
    lines.push(`  ${q(n.id)} [label=${q(n.label)}${n.group === 'finally' ? ', style="rounded,dashed"' : ''}];`);
  for (const e of edges) if (!e.dashed) lines.push(`  ${q(e.from)} -> ${q(e.to)};`);
  for (const e of edges) if (e.dashed) lines.push(`  ${q(e.from)} -> ${q(e.to)} [style=dashed];`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
