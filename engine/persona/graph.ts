/**
 * Draws the persona flow statechart from the machine's own definition (never a hand-kept copy):
 * states, their transitions with each transition's description, the initial and final states.
 * Mermaid `stateDiagram-v2` or Graphviz dot. Pure.
 */
import { personaMachine } from './machine.js';

/** One drawn edge. */
export interface GraphEdge {
  from: string;
  to: string;
  label: string;
}

/** The machine as nodes and edges. */
export interface StateGraph {
  initial: string;
  states: Array<{ id: string; final: boolean }>;
  edges: GraphEdge[];
}

interface TransitionLike {
  eventType: string;
  target?: ReadonlyArray<{ key: string }>;
  description?: string;
}

interface NodeLike {
  type: string;
  transitions: readonly TransitionLike[];
  states: Record<string, NodeLike>;
  initial?: { target: ReadonlyArray<{ key: string }> };
}

/** The persona machine's states and transitions (root-level events drawn from every live state). */
export function personaGraph(): StateGraph {
  const root = personaMachine.root.definition as unknown as NodeLike;
  const states = Object.entries(root.states).map(([id, node]) => ({ id, final: node.type === 'final' }));
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const add = (edge: GraphEdge) => {
    const key = `${edge.from}\u0000${edge.to}\u0000${edge.label}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push(edge);
  };
  for (const [from, node] of Object.entries(root.states)) {
    for (const t of node.transitions)
      for (const target of t.target ?? []) add({ from, to: target.key, label: labelOf(t) });
  }
  // A root transition (abort) applies in every state that is not final.
  for (const t of root.transitions) {
    for (const target of t.target ?? []) {
      for (const state of states)
        if (!state.final && state.id !== target.key && state.id !== 'stop')
          add({ from: state.id, to: target.key, label: labelOf(t) });
    }
  }
  return { initial: root.initial?.target[0]?.key ?? states[0]?.id ?? '', states, edges };
}

function labelOf(t: TransitionLike): string {
  if (t.description !== undefined) return t.description;
  if (t.eventType.startsWith('xstate.done.actor.')) return 'done';
  if (t.eventType.startsWith('xstate.error.actor.')) return 'error';
  return t.eventType;
}

/**
 * Renders the graph. `notes` label states with what decides there for one persona
 * (`decide: rules`, `verify: npm test`); `title` names the diagram.
 */
export function renderPersonaGraph(
  format: 'mermaid' | 'dot',
  options: { title: string; notes?: Record<string, string> } = { title: 'persona' },
): string {
  const graph = personaGraph();
  const notes = options.notes ?? {};
  // The abort edges from every state would bury the loop; they are drawn once, from a note.
  const edges = graph.edges.filter((e) => e.label !== 'abort');
  return format === 'mermaid' ? mermaid(graph, edges, notes, options.title) : dot(graph, edges, notes, options.title);
}

function mermaid(graph: StateGraph, edges: GraphEdge[], notes: Record<string, string>, title: string): string {
  const lines = ['---', `title: ${title.replace(/\n/g, ' ')}`, '---', 'stateDiagram-v2'];
  for (const state of graph.states) {
    const note = notes[state.id];
    if (note !== undefined) lines.push(`  ${state.id}: ${state.id} · ${note.replace(/[:\n]/g, ' ')}`);
  }
  lines.push(`  [*] --> ${graph.initial}`);
  for (const e of edges) lines.push(`  ${e.from} --> ${e.to}${e.label === 'done' ? '' : `: ${e.label}`}`);
  for (const state of graph.states) if (state.final) lines.push(`  ${state.id} --> [*]`);
  lines.push('  note right of read: abort (Ctrl-C, a flow timeout) → stop (aborted) from any state');
  return `${lines.join('\n')}\n`;
}

function dot(graph: StateGraph, edges: GraphEdge[], notes: Record<string, string>, title: string): string {
  const q = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  const lines = [
    `digraph ${q(title)} {`,
    '  rankdir=TB;',
    '  node [shape=box, style=rounded];',
    '  __start [shape=point];',
  ];
  for (const state of graph.states) {
    const note = notes[state.id];
    lines.push(
      `  ${q(state.id)} [label=${q(note === undefined ? state.id : `${state.id}\n${note}`)}${state.final ? ', shape=doublecircle' : ''}];`,
    );
  }
  lines.push(`  __start -> ${q(graph.initial)};`);
  for (const e of edges)
    lines.push(`  ${q(e.from)} -> ${q(e.to)}${e.label === 'done' ? '' : ` [label=${q(e.label)}]`};`);
  lines.push('  __abort [shape=note, label="abort (Ctrl-C, a flow timeout)\\n→ stop (aborted) from any state"];');
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
