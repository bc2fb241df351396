import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const capabilities = set.list('capability');
  if (options.json) {
    writeJson(
      io.stdout,
      capabilities.map((d) => ({ id: d.id, layer: d.layer, file: d.file, ...d.data })),
    );
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const rows = capabilities.map((d) => {
    const c = d.data;
    const source =
      c.source.kind === 'npm'
        ? `npm ${c.source.package}@${c.source.version}`
        : c.source.kind === 'github'
          ? `github ${c.source.repo}@${(c.source.commitSha ?? '').slice(0, 8)}`
          : `${c.source.kind} ${c.source.url ?? ''}`;
    const provides = [
      c.provides.mcpServers ? 'mcp' : '',
      c.provides.skills?.length ? 'skills' : '',
      c.provides.instructions ? 'instructions' : '',
    ]
      .filter(Boolean)
      .join(',');
    return [p.bold(d.id), c.trustTier, source, provides, String(c.detect.length)];
  });
  writeLine(io.stdout, table([['ID', 'TIER', 'SOURCE', 'PROVIDES', 'RULES'].map((h) => p.dim(h)), ...rows]));
  return EXIT.ok;
}
