import type { CompiledPlan, PlanStep } from './plan.js';

/** The step graph as Mermaid (`flowchart`) or Graphviz dot: needs are edges, finally steps dashed. */
export function renderGraph(plan: CompiledPlan, format: 'mermaid' | 'dot'): string {
  const main = plan.steps.filter((s) => s.group === 'main');
  const fin = plan.steps.filter((s) => s.group === 'finally');
  const needed = new Set(main.flatMap((s) => s.needs));
  const leaves = main.filter((s) => !needed.has(s.id));
  return format === 'mermaid' ? mermaid(plan, main, fin, leaves) : dot(plan, main, fin, leaves);
}

function label(step: PlanStep): string {
  const detail = step.kind === 'agent' ? `agent${step.agent?.backend ? ` · ${step.agent.backend}` : ''}` : step.kind;
  const extra = [step.foreach ? 'foreach' : '', step.loop ? 'loop' : '', step.if ? 'if' : ''].filter((x) => x !== '');
  return `${step.name ?? step.id}\n${detail}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
}

function mermaidId(id: string): string {
  return `s_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function mermaid(plan: CompiledPlan, main: PlanStep[], fin: PlanStep[], leaves: PlanStep[]): string {
  const lines = ['flowchart TD'];
  const node = (s: PlanStep) => `${mermaidId(s.id)}["${label(s).replace(/"/g, '#quot;').replace(/\n/g, '<br/>')}"]`;
  for (const step of main) lines.push(`  ${node(step)}`);
  for (const step of main) for (const need of step.needs) lines.push(`  ${mermaidId(need)} --> ${mermaidId(step.id)}`);
  if (fin.length > 0) {
    lines.push('  subgraph finally');
    for (const step of fin) lines.push(`    ${node(step)}`);
    lines.push('  end');
    for (const step of fin) {
      for (const need of step.needs) lines.push(`  ${mermaidId(need)} --> ${mermaidId(step.id)}`);
      if (step.needs.length === 0)
        for (const leaf of leaves) lines.push(`  ${mermaidId(leaf.id)} -.-> ${mermaidId(step.id)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function dot(plan: CompiledPlan, main: PlanStep[], fin: PlanStep[], leaves: PlanStep[]): string {
  const q = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  const lines = [`digraph ${q(plan.name)} {`, '  rankdir=TB;', '  node [shape=box, style=rounded];'];
  for (const step of [...main, ...fin])
    lines.push(
      `  ${q(step.id)} [label=${q(label(step))}${step.group === 'finally' ? ', style="rounded,dashed"' : ''}];`,
    );
  for (const step of [...main, ...fin]) for (const need of step.needs) lines.push(`  ${q(need)} -> ${q(step.id)};`);
  for (const step of fin)
    if (step.needs.length === 0)
      for (const leaf of leaves) lines.push(`  ${q(leaf.id)} -> ${q(step.id)} [style=dashed];`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
