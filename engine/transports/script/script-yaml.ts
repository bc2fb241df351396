import { Document, isMap, isScalar, isSeq, visit, type Node } from 'yaml';
import type { Script } from '../../generated/script.js';

export interface RenderOptions {
  /** The schema path or URL for the editor modeline. */
  schema: string;
  /** A comment line above each turn (e.g. the guidance that started it). */
  turnComments?: ReadonlyArray<string | undefined>;
  /** Comment lines at the top, under the modeline. */
  header?: readonly string[];
}

/** Most characters of a turn comment; longer guidance is cut with an ellipsis. */
const COMMENT_MAX = 300;

/**
 * Renders a script as YAML: the `yaml-language-server` modeline first (editors then validate
 * and complete it), multi-line text as block scalars, a comment above each turn.
 */
export function renderScriptYaml(script: Script, options: RenderOptions): string {
  const doc = new Document(script);
  const turns = isMap(doc.contents) ? (doc.contents.get('turns', true) as Node | undefined) : undefined;
  if (isSeq(turns)) {
    turns.items.forEach((item, i) => {
      const note = options.turnComments?.[i];
      const label = `turn ${i + 1}${note === undefined ? '' : ` — after: ${oneLine(note)}`}`;
      (item as Node).commentBefore = ` ${label}`;
    });
  }
  // Short lists and figures read best on one line: `command: [npm, test]`, `cost: { usd: 0.01 }`.
  visit(doc, {
    Pair(_, pair) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const value = pair.value;
      if (
        (key === 'command' || key === 'guidanceContains') &&
        isSeq(value) &&
        value.items.every((item) => isScalar(item) && !String(item.value).includes('\n'))
      )
        value.flow = true;
      if (key === 'cost' && isMap(value)) value.flow = true;
    },
  });
  const header = [
    ` yaml-language-server: $schema=${options.schema}`,
    ...(options.header ?? []).map((line) => ` ${line}`),
  ];
  doc.commentBefore = header.join('\n');
  return doc.toString({ lineWidth: 0, blockQuote: 'literal', flowCollectionPadding: false });
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= COMMENT_MAX ? flat : `${flat.slice(0, COMMENT_MAX - 1)}…`;
}
