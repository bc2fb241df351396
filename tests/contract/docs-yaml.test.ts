/**
 * Every YAML block in docs/ parses, and a block that is a whole definition validates as one: a
 * reader copies these examples into files, so an example that is invalid is a bug. What a block
 * is comes from its keys (a flow has `steps`, a backend `protocol`, neo.yaml `providers` or
 * `agent`, a script `turns` of action lists, a model script `turns` of replies); fragments (one
 * step, a `defaults:` block) only have to parse. A ```markdown block with frontmatter is a persona.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatDiagnostics, loadDefinitionText, type DefinitionKind } from '../../engine/definitions/index.js';
import { parseModelScript } from '../../engine/model-server/index.js';
import { checkScriptText } from '../../engine/transports/script/index.js';
import { packageRoot } from '../../engine/util/package-root.js';

const docs = join(packageRoot(), 'docs');

interface Block {
  where: string;
  lang: string;
  text: string;
}

function blocks(): Block[] {
  const out: Block[] = [];
  for (const name of readdirSync(docs).filter((n) => n.endsWith('.md'))) {
    const lines = readFileSync(join(docs, name), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(yaml|yml|markdown)\s*$/.exec(lines[i]!);
      if (!open) continue;
      const start = i + 1;
      let end = start;
      while (end < lines.length && !lines[end]!.startsWith('```')) end++;
      out.push({ where: `docs/${name}:${start + 1}`, lang: open[1]!, text: lines.slice(start, end).join('\n') + '\n' });
      i = end;
    }
  }
  return out;
}

type Checked = 'flow' | 'backend' | 'config' | 'persona' | 'script' | 'model-script' | 'fragment';

function kindOf(block: Block, value: unknown): Checked {
  if (block.lang === 'markdown') return block.text.startsWith('---\n') ? 'persona' : 'fragment';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'fragment';
  const keys = value as Record<string, unknown>;
  if ('steps' in keys && 'name' in keys) return 'flow';
  if ('protocol' in keys) return 'backend';
  if ('providers' in keys || 'agent' in keys) return 'config';
  if (Array.isArray(keys.turns)) {
    const first = keys.turns[0] as unknown;
    return Array.isArray(first) || (typeof first === 'object' && first !== null && 'actions' in first)
      ? 'script'
      : 'model-script';
  }
  return 'fragment';
}

function problems(kind: Checked, block: Block): string {
  const file = join(docs, `example.${kind}`);
  if (kind === 'script') return formatDiagnostics(checkScriptText(block.text, file).diagnostics);
  if (kind === 'model-script') return formatDiagnostics(parseModelScript(block.text, file).diagnostics);
  if (kind === 'fragment') return '';
  const load = loadDefinitionText(file, block.text, {
    kind: kind as DefinitionKind,
    layer: 'project',
    trusted: true,
    defaultId: 'example',
  });
  return formatDiagnostics(load.diagnostics.filter((d) => d.severity === 'error'));
}

describe('the YAML in docs/', () => {
  const all = blocks();

  it('has examples to check', () => {
    expect(all.length).toBeGreaterThan(15);
  });

  it.each(all.map((b) => [b.where, b] as const))(
    '%s parses, and validates when it is a definition',
    (_where, block) => {
      const yamlText = block.lang === 'markdown' ? (/^---\n([\s\S]*?)\n---\n/.exec(block.text)?.[1] ?? '') : block.text;
      const doc = parseDocument(yamlText);
      expect(doc.errors.map((e) => e.message)).toEqual([]);
      const kind = kindOf(block, doc.toJS());
      expect(problems(kind, block), `${block.where} (${kind})`).toBe('');
    },
  );
});
