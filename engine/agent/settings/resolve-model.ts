/**
 * Model ids from what a caller asked for. A class sentinel (`cheap`, `standard`, `frontier`)
 * resolves through the neo backend's descriptor (`modelClassMap`), and where the descriptor leaves
 * a class open (null), through the provider's own `models` map in neo.yaml. An unmapped class is
 * an error, never a guess.
 */
import type { Backend, ModelClass } from '../../definitions/index.js';
import { AgentError } from '../errors.js';
import type { AgentSettings } from './agent-settings.js';

const CLASSES: readonly string[] = ['cheap', 'standard', 'frontier'];

export function isModelClass(value: string): value is ModelClass {
  return CLASSES.includes(value);
}

/** The concrete model id for `requested` (an id or a sentinel), else agent.model, else the standard class. */
export function resolveModel(
  requested: string | undefined,
  settings: AgentSettings,
  descriptor?: Pick<Backend, 'modelClassMap'>,
): string {
  const wanted = requested ?? settings.model ?? 'standard';
  if (!isModelClass(wanted)) return wanted;
  const fromDescriptor = descriptor?.modelClassMap?.[wanted];
  if (typeof fromDescriptor === 'string' && fromDescriptor !== '') return fromDescriptor;
  const fromProvider = settings.provider.models[wanted];
  if (fromProvider !== undefined && fromProvider !== '') return fromProvider;
  const name = settings.provider.name;
  throw new AgentError(
    requested === undefined && settings.model === undefined ? 'AGENT_NO_MODEL' : 'AGENT_MODEL_CLASS_UNMAPPED',
    requested === undefined && settings.model === undefined
      ? `no model is configured for provider ${name}`
      : `model class "${wanted}" has no model for provider ${name}`,
    { hint: `set providers.${name}.models.${wanted} (or agent.model) in neo.yaml` },
  );
}
