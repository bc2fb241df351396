import { NeoError } from '../../util/errors.js';

type Json = Record<string, unknown>;

/** One value a select config option offers (flat or grouped). */
interface OptionValue {
  value: string;
  name?: string;
}

/** What the agent said it lets a client choose, from session/new (or load) and later updates. */
export interface AcpChoices {
  configOptions: Json[];
  models: { currentModelId?: string; availableModels: Array<{ modelId: string; name?: string }> } | undefined;
}

/** How to switch something: a config option, or the older session/set_model. */
export type Switch =
  | { method: 'session/set_config_option'; params: { configId: string; value: string } }
  | { method: 'session/set_model'; params: { modelId: string } };

/** The request that selects `model` (config option of category model, else session/set_model). */
export function modelSwitch(backendId: string, choices: AcpChoices, model: string): Switch {
  const option = findOption(choices.configOptions, ['model'], ['model']);
  if (option !== undefined) {
    const values = optionValues(option);
    const value = values.find((v) => v.value === model || v.name === model)?.value;
    if (value === undefined && values.length > 0)
      throw new NeoError(
        'TRANSPORT_MODEL_UNSUPPORTED',
        `${backendId} offers no model "${model}" (it offers: ${values.map((v) => v.value).join(', ')})`,
      );
    return { method: 'session/set_config_option', params: { configId: String(option.id), value: value ?? model } };
  }
  if (choices.models !== undefined) {
    const known = choices.models.availableModels;
    if (known.length > 0 && !known.some((m) => m.modelId === model)) {
      throw new NeoError(
        'TRANSPORT_MODEL_UNSUPPORTED',
        `${backendId} offers no model "${model}" (it offers: ${known.map((m) => m.modelId).join(', ')})`,
      );
    }
    return { method: 'session/set_model', params: { modelId: model } };
  }
  // The agent announced no model choice; the unstable session/set_model is its last chance
  // (an agent without it answers method-not-found, which fails loudly).
  return { method: 'session/set_model', params: { modelId: model } };
}

/** The config option request that sets reasoning effort (category thought_level). */
export function effortSwitch(backendId: string, choices: AcpChoices, effort: string): Switch {
  const option = findOption(choices.configOptions, ['thought_level'], ['effort', 'thought_level', 'reasoning_effort']);
  if (option === undefined)
    throw new NeoError('TRANSPORT_EFFORT_UNSUPPORTED', `${backendId} offers no effort setting`, {
      hint: 'leave effort unset for this backend',
    });
  const values = optionValues(option);
  const candidates = effort === 'max' ? ['max', 'xhigh', 'high'] : [effort];
  const value = candidates.map((c) => values.find((v) => v.value === c)?.value).find((v) => v !== undefined);
  if (value === undefined)
    throw new NeoError(
      'TRANSPORT_EFFORT_UNSUPPORTED',
      `${backendId} offers no effort "${effort}" (it offers: ${values.map((v) => v.value).join(', ')})`,
    );
  return { method: 'session/set_config_option', params: { configId: String(option.id), value } };
}

/** The current model, for the started event. */
export function currentModel(choices: AcpChoices): string | undefined {
  const option = findOption(choices.configOptions, ['model'], ['model']);
  if (option !== undefined && typeof option.currentValue === 'string') return option.currentValue;
  return choices.models?.currentModelId;
}

/** Reads the choices out of a session/new, session/load or session/resume result. */
export function readChoices(result: Json): AcpChoices {
  const configOptions = Array.isArray(result.configOptions)
    ? result.configOptions.filter((o): o is Json => typeof o === 'object' && o !== null)
    : [];
  const models = result.models as Json | undefined;
  return {
    configOptions,
    models:
      typeof models === 'object' && models !== null
        ? {
            ...(typeof models.currentModelId === 'string' ? { currentModelId: models.currentModelId } : {}),
            availableModels: Array.isArray(models.availableModels)
              ? (models.availableModels as Array<{ modelId: string; name?: string }>)
              : [],
          }
        : undefined,
  };
}

function findOption(options: Json[], categories: string[], ids: string[]): Json | undefined {
  return (
    options.find((o) => typeof o.category === 'string' && categories.includes(o.category)) ??
    options.find((o) => typeof o.id === 'string' && ids.includes(o.id))
  );
}

function optionValues(option: Json): OptionValue[] {
  const raw = Array.isArray(option.options) ? option.options : [];
  const out: OptionValue[] = [];
  for (const entry of raw as Json[]) {
    if (typeof entry.value === 'string')
      out.push({ value: entry.value, ...(typeof entry.name === 'string' ? { name: entry.name } : {}) });
    else if (Array.isArray(entry.options)) out.push(...optionValues(entry));
  }
  return out;
}
