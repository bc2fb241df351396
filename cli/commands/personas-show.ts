import { didYouMean } from '../../engine/util/did-you-mean.js';
import { UsageError } from '../../engine/util/errors.js';
import { effectivePersonaKnobs, personaView } from '../../engine/definitions/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

export async function run(
  io: CommandIO,
  id: string,
  options: { json?: boolean; effective?: boolean },
): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const definition = set.get('persona', id);
  if (definition === undefined) {
    const suggestion = didYouMean(id, set.ids('persona'));
    throw new UsageError('CLI_UNKNOWN_PERSONA', `unknown persona \`${id}\``, {
      hint: suggestion ? `did you mean \`${suggestion}\`?` : 'run `neo personas list`',
    });
  }
  const view = personaView(definition);
  const overrides = set.shadowedBy('persona', id).map((d) => ({ layer: d.layer, file: d.file }));
  const effective = options.effective ? effectivePersonaKnobs(set, definition) : undefined;
  // What a dispatch registers as scope constraints (a conflict is reported above, not thrown here).
  const persona = effective !== undefined || view.driver ? await import('../../engine/persona/index.js') : undefined;
  const constraints =
    persona !== undefined && effective !== undefined && effective.conflicts.length === 0
      ? persona.dispatchKnobs(set, definition).constraints
      : undefined;
  // What the effective backend leaves advisory: a rule the persona's agent can step around there.
  const backendId = typeof effective?.knobs.backend === 'string' ? effective.knobs.backend : undefined;
  const enforcement = backendId === undefined ? undefined : set.get('backend', backendId)?.data.enforcement;
  // No backend pinned: every backend the persona may land on where something stays advisory.
  const advisoryOn =
    effective === undefined || backendId !== undefined
      ? undefined
      : Object.fromEntries(
          set
            .list('backend')
            .flatMap((b) => (b.data.enforcement?.advisory === undefined ? [] : [[b.id, b.data.enforcement.advisory]])),
        );
  if (options.json) {
    writeJson(io.stdout, {
      ...view,
      origin: { layer: definition.layer, file: definition.file },
      overrides,
      ignoredFields: definition.ignoredFields,
      frontmatter: definition.data,
      ...(effective ? { effective } : {}),
      ...(constraints ? { constraints } : {}),
      ...(enforcement ? { enforcement: { backend: backendId, ...enforcement } } : {}),
      ...(advisoryOn ? { advisoryOn } : {}),
    });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  writeLine(io.stdout, `${p.bold(view.id)}${view.driver ? p.cyan(' (driver)') : ''}`);
  writeLine(io.stdout, `  ${view.description}`);
  writeLine(io.stdout, `  origin: ${definition.layer} · ${definition.file}`);
  for (const o of overrides) writeLine(io.stdout, `  overrides: ${o.layer} · ${o.file}`);
  for (const field of definition.ignoredFields)
    writeLine(
      io.stdout,
      p.yellow(
        `  ignored (${definition.untrustedBecause === undefined ? 'untrusted project' : 'changed since `neo trust`'}): ${field}`,
      ),
    );
  writeLine(
    io.stdout,
    `  decide: ${view.decide}${view.policy ? ` · policy: ${view.policy}` : ''}${view.model ? ` · model: ${view.model}` : ''}`,
  );
  const knobs = effective?.knobs ?? view.knobs;
  const from = effective?.provenance ?? {};
  writeLine(io.stdout, effective ? '  effective knobs:' : '  knobs:');
  for (const [key, value] of Object.entries(knobs)) {
    const source = (from as Record<string, string | undefined>)[key];
    writeLine(io.stdout, `    ${key}: ${JSON.stringify(value)}${source ? p.dim(`  ← ${source}`) : ''}`);
  }
  for (const conflict of effective?.conflicts ?? []) writeLine(io.stdout, p.red(`    conflict: ${conflict.message}`));
  if (constraints !== undefined) writeLine(io.stdout, `  scope constraints: ${JSON.stringify(constraints)}`);
  if (enforcement !== undefined)
    writeLine(
      io.stdout,
      enforcement.advisory === undefined
        ? `  on ${backendId}: neo decides every edit and command it asks about (nothing advisory)`
        : p.yellow(`  on ${backendId}, advisory: ${enforcement.advisory}`),
    );
  if (advisoryOn !== undefined && Object.keys(advisoryOn).length > 0)
    writeLine(
      io.stdout,
      p.yellow(
        `  no backend pinned; advisory on ${Object.keys(advisoryOn).join(', ')} (allowCommands there does not stop every command: docs/backends.md#enforcement; pin a backend to see its line)`,
      ),
    );
  if (view.driver && persona !== undefined) {
    const rules = (await import('../../engine/posture/index.js')).rulesWithDefaults(definition.data.rules);
    writeLine(
      io.stdout,
      `  driving: ${view.decide} · ${rules.clarify?.length ?? 0} clarify rules, otherwise ${rules.otherwise ?? 'deny'} · ${rules.verify === undefined ? 'no verify command' : `verify \`${rules.verify}\``}${rules.prefer?.length ? ` · prefer ${rules.prefer.join(', ')}` : ''}`,
    );
  }
  if (view.instructions) {
    writeLine(io.stdout, '');
    writeLine(
      io.stdout,
      view.instructions
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
  }
  return EXIT.ok;
}
