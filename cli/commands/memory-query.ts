import {
  callees,
  callers,
  findRefs,
  findSymbol,
  imports,
  outline,
  openMemory,
  testsFor,
} from '../../engine/memory/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

export const QUERIES = ['symbol', 'refs', 'callers', 'callees', 'imports', 'tests-for', 'outline'] as const;

/** `neo memory query <kind> <name>`: one question to the code graph (run `neo memory index` first). */
export async function run(io: CommandIO, kind: string, name: string, options: { json?: boolean }): Promise<number> {
  if (!(QUERIES as readonly string[]).includes(kind))
    throw new UsageError('CLI_BAD_ARGUMENT', `\`${kind}\` is not a query: one of ${QUERIES.join(', ')}`);
  const memory = openMemory(neoHome(io.env), io.cwd, { readonly: true });
  try {
    const db = memory.db;
    const result: unknown =
      kind === 'symbol'
        ? findSymbol(db, name)
        : kind === 'refs'
          ? findRefs(db, name)
          : kind === 'callers'
            ? callers(db, name)
            : kind === 'callees'
              ? callees(db, name)
              : kind === 'imports'
                ? imports(db, name)
                : kind === 'tests-for'
                  ? testsFor(db, name)
                  : outline(db, name);
    if (options.json) {
      writeJson(io.stdout, result);
      return EXIT.ok;
    }
    for (const line of render(kind, result)) writeLine(io.stdout, terminalSafe(line));
    return EXIT.ok;
  } finally {
    memory.db.close();
  }
}

function render(kind: string, result: unknown): string[] {
  const rows = result as Array<Record<string, unknown>>;
  switch (kind) {
    case 'symbol':
    case 'outline':
      return rows.map(
        (s) => `${String(s.file)}:${String(s.startLine)}: ${symbolLine(String(s.kind), String(s.signature))}`,
      );
    case 'refs':
      return rows.map(
        (r) => `${String(r.file)}:${String(r.line)}: ${String(r.kind)}${r.caller ? ` in ${String(r.caller)}` : ''}`,
      );
    case 'callers':
      return rows.map((r) => `${String(r.file)}:${(r.lines as number[]).join(',')}: ${String(r.caller)}`);
    case 'callees':
      return rows.map(
        (r) =>
          `${String(r.file)}:${String(r.line)}: ${String(r.name)}${(r.definedIn as string[]).length > 0 ? ` (${(r.definedIn as string[]).join(', ')})` : ''}`,
      );
    case 'imports': {
      const { imports: own, importedBy } = result as {
        imports: Array<{ spec: string; target?: string; line: number }>;
        importedBy: string[];
      };
      return [
        ...own.map(
          (i) =>
            `imports ${i.spec}${i.target !== undefined && i.target !== i.spec ? ` → ${i.target}` : ''} (line ${i.line})`,
        ),
        ...importedBy.map((f) => `imported by ${f}`),
      ];
    }
    default:
      return rows.map((t) => `${String(t.file)}: ${String(t.why)}`);
  }
}

/** `kind signature`, the kind said once when the signature opens with it (`function toVal(mix)`). */
function symbolLine(kind: string, signature: string): string {
  return signature.startsWith(`${kind} `) ? signature : `${kind} ${signature}`;
}
