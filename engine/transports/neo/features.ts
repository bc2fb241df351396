/**
 * What a neo session's agent has beyond the built-in tools: the edit journal behind undo, the
 * workflow checklist, the context pruner with its restore tool, and the task tool with the
 * supervisor that runs its children. Built once per session; children get their tools here too.
 */
import {
  Agent,
  Checklist,
  ContextPruner,
  EditJournal,
  restoreContextTool,
  Supervisor,
  taskTool,
  workflowTool,
  type AgentSettings,
  type AgentTool,
  type AgentUsage,
  type ChecklistItem,
  type ChildKind,
  type Provider,
  type ToolApprover,
} from '../../agent/index.js';
import { defined } from '../../util/defined.js';

/** What inspect children may use: constrained by capability selection, whatever the posture. */
export const INSPECT_TOOLS: ReadonlySet<string> = new Set(['read_file', 'grep', 'glob']);

export interface FeatureOptions {
  /** The session's tools after allowedTools/disallowedTools. */
  tools: readonly AgentTool[];
  root: string;
  settings: AgentSettings;
  provider: Provider;
  /** The model children use: the parent's, read when the child starts. */
  model: () => string;
  system: string;
  approve: ToolApprover;
  redact: (text: string) => string;
  price: (usage: AgentUsage, model: string | undefined) => number | undefined;
  onChecklist: (items: ChecklistItem[]) => void;
  checklist?: readonly ChecklistItem[];
  /** Whether allowedTools/disallowedTools leave this session tool in (default: all). */
  keepTool?: (name: string) => boolean;
}

export interface AgentFeatures {
  /** The session agent's tools: journaled writes, workflow, restore_context, task. */
  tools: AgentTool[];
  journal: EditJournal;
  checklist: Checklist;
  pruner?: ContextPruner;
  supervisor: Supervisor;
}

export function agentFeatures(options: FeatureOptions): AgentFeatures {
  const { settings } = options;
  const journal = new EditJournal(options.root);
  const tracked = options.tools.map((t) => journal.track(t));
  const checklist = new Checklist(options.onChecklist, options.checklist);
  const pruner = settings.pruner !== undefined ? new ContextPruner(settings.pruner) : undefined;
  const childTools = (kind: ChildKind, depth: number): AgentTool[] => {
    if (kind === 'inspect') return tracked.filter((t) => INSPECT_TOOLS.has(t.spec.name));
    return depth < settings.subagents.maxDepth ? [...tracked, taskTool(supervisor, depth)] : tracked;
  };
  const supervisor: Supervisor = new Supervisor({
    budgets: settings.subagents,
    price: options.price,
    spawn: (request) =>
      new Agent({
        provider: options.provider,
        model: options.model(),
        system: `${options.system}\n\n${childBrief(request.kind)}`,
        tools: childTools(request.kind, request.depth),
        // Inspect children cannot write whatever the gate says; general ones meet the same gate.
        ...(request.kind === 'general' ? { approve: options.approve } : {}),
        maxTurns: request.maxTurns,
        maxOutputTokens: settings.maxOutputTokens,
        toolOutputMaxBytes: settings.toolOutputMaxBytes,
        redact: options.redact,
        deltas: false,
        onEvent: request.onEvent,
      }),
  });
  const own = [workflowTool(checklist), taskTool(supervisor, 0), ...(pruner ? [restoreContextTool(pruner)] : [])];
  const keep = options.keepTool ?? (() => true);
  const tools: AgentTool[] = [...tracked, ...own.filter((t) => keep(t.spec.name))];
  return { tools, journal, checklist, supervisor, ...defined({ pruner }) };
}

function childBrief(kind: ChildKind): string {
  const reach =
    kind === 'inspect'
      ? 'You can only read: read_file, grep and glob are your tools.'
      : 'You have the tools of the agent that started you, under the same permissions.';
  return `You are a sub-agent started by another agent for one task. ${reach} Do the task, then answer with what you found or did, briefly: your final message is all the other agent sees.`;
}
