/**
 * The distiller's model: neo's own agent from neo.yaml, asked for the `cheap` model class (a
 * provider that leaves the class unmapped falls back to `agent.model`). No tools: the answer is
 * text, read as data by parseDistillAnswer.
 */
import type { DistilModel } from './distiller.js';
import { defined } from '../util/defined.js';

export const DISTIL_MODEL_CLASS = 'cheap';

export function agentDistil(options: {
  home: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Told the concrete model and the tokens of the call (the budget reserve). */
  spent?: (usage: { model: string; tokens: number }) => void;
}): DistilModel {
  return async ({ system, message }) => {
    // Loaded when a distillation runs, not with the learning area: the flow's start-up path reads
    // lessons (lessons-brief.ts), and the agent with its dependencies (yaml) would cost every
    // `neo flow run` tens of milliseconds it never uses.
    const { createConfiguredAgent, isModelClass, loadAgentSettings } = await import('../agent/index.js');
    const settings = await loadAgentSettings({
      cwd: options.cwd,
      home: options.home,
      ...defined({ env: options.env }),
    });
    const unmapped =
      isModelClass(DISTIL_MODEL_CLASS) &&
      settings.provider.models[DISTIL_MODEL_CLASS] === undefined &&
      settings.model !== undefined;
    const agent = createConfiguredAgent({
      settings,
      system,
      tools: [],
      deltas: false,
      ...(unmapped ? {} : { model: DISTIL_MODEL_CLASS }),
    });
    const result = await agent.send(message, options.signal === undefined ? {} : { signal: options.signal });
    options.spent?.({ model: agent.model, tokens: result.usage.inputTokens + result.usage.outputTokens });
    return result.text;
  };
}
