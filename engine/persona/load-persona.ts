/**
 * Finding the persona to run. A named persona is the winning definition of its id. The default
 * driver (`code-specialist`, when nothing names one) follows seed 004 §2's loading rule: an
 * owner-installed `NEO_HOME/agents/code-specialist.md` wins, else the packaged template, read
 * as it is — a project layer cannot swap in its own default driver.
 */
import { personaView, type Definition, type DefinitionSet, type PersonaView } from '../definitions/index.js';
import { didYouMean } from '../util/did-you-mean.js';
import { UsageError } from '../util/errors.js';
import type { ClarifyRules as PersonaRules } from '../posture/index.js';

/** The id of the driver persona neo ships. */
export const DEFAULT_DRIVER = 'code-specialist';

/** A persona ready to dispatch. */
export interface LoadedPersona {
  definition: Definition<'persona'>;
  view: PersonaView;
  rules: PersonaRules;
}

/** The persona `id`, or the default driver when `id` is undefined. */
export function loadPersona(set: DefinitionSet, id: string | undefined): LoadedPersona {
  const definition = id === undefined ? defaultDriver(set) : set.get('persona', id);
  if (definition === undefined) {
    const wanted = id ?? DEFAULT_DRIVER;
    const guess = didYouMean(wanted, set.ids('persona'));
    throw new UsageError('PERSONA_UNKNOWN', `unknown persona \`${wanted}\``, {
      hint: guess !== undefined ? `did you mean \`${guess}\`?` : 'run `neo personas list`',
    });
  }
  return { definition, view: personaView(definition), rules: definition.data.rules ?? {} };
}

function defaultDriver(set: DefinitionSet): Definition<'persona'> | undefined {
  const all = [set.get('persona', DEFAULT_DRIVER), ...set.shadowedBy('persona', DEFAULT_DRIVER)].filter(
    (d): d is Definition<'persona'> => d !== undefined && d.kind === 'persona',
  );
  return all.find((d) => d.layer === 'user' && d.data.driver === true) ?? all.find((d) => d.layer === 'packaged');
}
