import { renderPersonaGraph, loadPersona } from '../../engine/persona/index.js';
import { rulesWithDefaults } from '../../engine/posture/index.js';
import { EXIT } from '../exit-codes.js';
import type { CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

/** `neo persona graph <id>`: the persona flow statechart, annotated with who decides where. */
export async function run(io: CommandIO, id: string, options: { format?: 'mermaid' | 'dot' }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const persona = loadPersona(set, id);
  const view = persona.view;
  const rules = view.driver ? rulesWithDefaults(persona.definition.data.rules) : rulesWithDefaults(undefined);
  const decider = view.driver ? view.decide : 'rules';
  const by = decider === 'llm' ? `llm (${view.model ?? 'default model'})` : decider;
  const verify = rules.verify === undefined ? 'no verify command' : `verify ${rules.verify}`;
  const notes: Record<string, string> = {
    select: decider === 'llm' ? by : `rules${rules.prefer?.length ? ` (prefer ${rules.prefer.join(', ')})` : ''}`,
    decide:
      decider === 'rules'
        ? `rules (${rules.clarify?.length ?? 0} clarify rules, otherwise ${rules.otherwise ?? 'deny'})`
        : by,
    judge: `${by} · ${verify}`,
    verify: `${decider === 'llm' ? by : 'rules'} · ${verify}`,
  };
  const title = `persona ${view.id}${view.driver ? ' (driver)' : ' (driven role, default rules)'}`;
  io.stdout.write(renderPersonaGraph(options.format ?? 'mermaid', { title, notes }));
  return EXIT.ok;
}
