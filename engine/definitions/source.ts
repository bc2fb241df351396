import type { Document, LineCounter, Node, Pair, YAMLMap } from 'yaml';
import { excerpt } from '../util/excerpt.js';
import { yamlLib } from './yaml-lib.js';
import type { Diagnostic, SourcePosition, SourceSpan } from './diagnostic.js';

/** Most aliases a document may expand; past it the file is treated as an alias bomb. */
const MAX_ALIAS_COUNT = 100;

/**
 * Deepest nesting of maps and lists a definition may have. Real definitions nest a dozen levels;
 * every later pass (conversion, schema check, references) recurses, so depth is bounded here,
 * before any of them runs.
 */
export const MAX_YAML_DEPTH = 64;

/**
 * A parsed YAML text with the means to turn parser ranges into file positions. For Markdown the
 * YAML is the frontmatter: `lineOffset`/`charOffset` shift positions to the whole file.
 */
export class YamlSource {
  readonly file: string;
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly #lines: LineCounter;
  readonly #pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
  readonly #lineOffset: number;
  readonly #charOffset: number;

  constructor(file: string, text: string, options: { lineOffset?: number; charOffset?: number } = {}) {
    this.file = file;
    this.text = text;
    this.#lineOffset = options.lineOffset ?? 0;
    this.#charOffset = options.charOffset ?? 0;
    const yaml = yamlLib();
    this.#lines = new yaml.LineCounter();
    this.doc = yaml.parseDocument(text, {
      lineCounter: this.#lines,
      // Checked in linear time by structureDiagnostics(); the parser's check is quadratic.
      uniqueKeys: false,
      prettyErrors: false,
      keepSourceTokens: false,
    });
  }

  /** File position of an offset inside the YAML text. */
  position(offset: number): SourcePosition {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const { line, col } = this.#lines.linePos(clamped);
    return { line: line + this.#lineOffset, column: col, offset: clamped + this.#charOffset };
  }

  /** File span of a YAML-text range. */
  span(start: number, end: number): SourceSpan {
    return { file: this.file, start: this.position(start), end: this.position(Math.max(start, end)) };
  }

  /** Span of a node (value end, not including trailing comments), or the document start. */
  spanOf(node: Node | null | undefined): SourceSpan {
    const range = node?.range;
    return range ? this.span(range[0], range[1]) : this.span(0, 0);
  }

  /** Syntax problems from the parser, duplicate keys and nesting past {@link MAX_YAML_DEPTH}. */
  syntaxDiagnostics(): Diagnostic[] {
    const out: Diagnostic[] = [];
    let tooDeep = false;
    const errors = [...this.doc.errors, ...this.doc.warnings];
    // Where the parser overflowed, what it says while unwinding (a stack overflow once per level,
    // an indentation error per level of an unclosed `[[[[…`) is that one problem: said once.
    const overflowAt = errors.find((e) => YAML_ERROR_CODES[e.code] === 'DEF_YAML_TOO_DEEP')?.pos[0];
    const said = new Set<string>();
    for (const error of errors) {
      const [start, end] = error.pos;
      const code = YAML_ERROR_CODES[error.code] ?? 'DEF_YAML_SYNTAX';
      if (overflowAt !== undefined && start === overflowAt && code !== 'DEF_YAML_TOO_DEEP') continue;
      // The same problem at the same place is one diagnostic, however often the parser says it.
      const key = `${code}:${start}:${end}`;
      if (said.has(key) || (code === 'DEF_YAML_TOO_DEEP' && tooDeep)) continue;
      said.add(key);
      tooDeep ||= code === 'DEF_YAML_TOO_DEEP';
      out.push({
        code,
        severity: this.doc.errors.includes(error as never) ? 'error' : 'warning',
        message: YAML_MESSAGES[code] ?? firstLine(error.message),
        span: this.span(start, end),
        hint: YAML_HINTS[code],
      });
    }
    if (!tooDeep) out.push(...this.#structureDiagnostics());
    return out;
  }

  /**
   * Duplicate keys and nesting past {@link MAX_YAML_DEPTH}, in one walk without recursion. The
   * parser's own duplicate check compares each key with every earlier key of its map: 60,000
   * keys took minutes. This one remembers the keys of a map in a `Map`: linear.
   */
  #structureDiagnostics(): Diagnostic[] {
    const yaml = yamlLib();
    const out: Diagnostic[] = [];
    const stack: Array<[unknown, number]> = [[this.doc.contents, 1]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      if (!yaml.isCollection(node)) continue;
      if (depth > MAX_YAML_DEPTH) {
        out.push(this.#diagnostic('DEF_YAML_TOO_DEEP', node));
        // One is enough: everything below it is deeper still.
        stack.length = 0;
        continue;
      }
      const seen = yaml.isMap(node) ? new Map<unknown, Node>() : undefined;
      for (const item of node.items) {
        if (!yaml.isPair(item)) {
          stack.push([item, depth + 1]);
          continue;
        }
        const key = item.key;
        if (seen !== undefined && yaml.isScalar(key)) {
          const first = seen.get(key.value);
          if (first === undefined) seen.set(key.value, key);
          else out.push(this.#duplicate(key, first));
        }
        stack.push([key, depth + 1], [item.value, depth + 1]);
      }
    }
    return out;
  }

  #duplicate(key: Node, first: Node): Diagnostic {
    const name = excerpt(String((key as { value?: unknown }).value), 80);
    return {
      ...this.#diagnostic('DEF_YAML_DUPLICATE_KEY', key),
      message: `duplicate key \`${name}\``,
      related: [{ message: 'first defined here', span: this.spanOf(first) }],
    };
  }

  #diagnostic(code: string, node: Node): Diagnostic {
    return { code, severity: 'error', message: YAML_MESSAGES[code]!, span: this.spanOf(node), hint: YAML_HINTS[code] };
  }

  /**
   * The document as plain data. An alias bomb (excessive alias expansion) is reported rather than
   * expanded, so a hostile file cannot exhaust memory.
   */
  toValue(): { value: unknown } | { diagnostic: Diagnostic } {
    try {
      return { value: this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
    } catch {
      return {
        diagnostic: {
          code: 'DEF_YAML_ALIAS_BOMB',
          severity: 'error',
          message: `too many alias expansions (more than ${MAX_ALIAS_COUNT}); refusing to expand the document`,
          span: this.spanOf(this.doc.contents),
          hint: 'write the data out instead of nesting aliases of aliases',
        },
      };
    }
  }

  /**
   * Finds what a JSON Pointer points at: the value node and, when reached through a map key, that
   * key's node. Falls back to the nearest existing parent.
   */
  locate(segments: readonly string[]): { node: Node | null; key: Node | null; depth: number } {
    let node: Node | null = (this.doc.contents as Node | null) ?? null;
    let key: Node | null = null;
    let depth = 0;
    for (const segment of segments) {
      if (yamlLib().isMap(node)) {
        const pair = this.#pairOf(node, segment);
        if (!pair) break;
        key = pair.key as Node;
        node = (pair.value as Node | null) ?? (pair.key as Node);
      } else if (yamlLib().isSeq(node)) {
        const item = node.items[Number(segment)];
        if (item === undefined || yamlLib().isPair(item)) break;
        key = null;
        node = item as Node;
      } else {
        break;
      }
      depth++;
    }
    return { node, key, depth };
  }

  /**
   * The pair of `map` whose key is `segment`, through an index built on first use: a check that
   * locates every entry of a 60,000-key map would otherwise scan it once per entry.
   */
  #pairOf(map: YAMLMap, segment: string): Pair | undefined {
    let index = this.#pairIndex.get(map);
    if (index === undefined) {
      index = new Map();
      for (const item of map.items as Pair[]) {
        const key = yamlLib().isScalar(item.key) ? String(item.key.value) : undefined;
        // The first pair wins, as a search from the start would find it.
        if (key !== undefined && !index.has(key)) index.set(key, item);
      }
      this.#pairIndex.set(map, index);
    }
    return index.get(segment);
  }

  /** The first key of the top-level map (or the document itself). */
  firstKey(): Node | null {
    const contents = this.doc.contents as Node | null;
    if (yamlLib().isMap(contents) && contents.items.length > 0)
      return (contents.items[0]!.key as Node | null) ?? contents;
    return contents;
  }

  /** The key node of `segment` inside the map at `parentSegments`, when present. */
  keyNode(parentSegments: readonly string[], segment: string): Node | null {
    const { node, depth } = this.locate(parentSegments);
    if (depth !== parentSegments.length || !yamlLib().isMap(node)) return null;
    const pair = this.#pairOf(node, segment);
    return (pair?.key as Node | undefined) ?? null;
  }
}

const YAML_ERROR_CODES: Record<string, string> = {
  TAB_AS_INDENT: 'DEF_YAML_TAB',
  BAD_INDENT: 'DEF_YAML_INDENT',
  MULTIPLE_DOCS: 'DEF_YAML_MULTIPLE_DOCUMENTS',
  // The parser catches its own stack overflow on deeply nested collections and reports this.
  RESOURCE_EXHAUSTION: 'DEF_YAML_TOO_DEEP',
};

const YAML_MESSAGES: Record<string, string> = {
  DEF_YAML_MULTIPLE_DOCUMENTS: 'a second YAML document starts here; a definition file holds one',
  DEF_YAML_DUPLICATE_KEY: 'duplicate key',
  DEF_YAML_TOO_DEEP: `maps and lists nest too deeply here (more than ${MAX_YAML_DEPTH} levels)`,
};

const YAML_HINTS: Record<string, string> = {
  DEF_YAML_DUPLICATE_KEY: 'remove one of the two keys; YAML keeps only one',
  DEF_YAML_TAB: 'indent with spaces: YAML does not allow tabs for indentation',
  DEF_YAML_INDENT: 'check the indentation, and that every `[` and `{` is closed',
  DEF_YAML_MULTIPLE_DOCUMENTS: 'a definition file holds one document; remove the extra `---`',
  DEF_YAML_TOO_DEEP: 'flatten the structure; no definition needs this much nesting',
};

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? text;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}
