import { probeBackend, type Availability } from '../../engine/transports/index.js';
import { trackRecords } from '../../engine/learning/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { MATRIX_HEADER, matrixRow } from '../backend-matrix.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { defined } from '../../engine/util/defined.js';

/**
 * `neo backends list`: every backend descriptor as a capability matrix, with a live
 * availability probe (binary found, version, auth hint) unless `--no-probe`.
 */
export async function run(io: CommandIO, options: { json?: boolean; probe?: boolean }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const backends = set.list('backend');
  const probes = options.probe === false ? undefined : await Promise.all(backends.map((b) => probeBackend(b)));
  const records = trackRecords(neoHome(io.env));
  const track = await Promise.all(backends.map((b) => records.lines(b.id).catch(() => undefined)));
  if (options.json) {
    writeJson(
      io.stdout,
      backends.map((d, i) => ({
        id: d.id,
        layer: d.layer,
        file: d.file,
        ...(probes === undefined ? {} : { availability: probes[i] }),
        ...defined({ trackRecord: track[i] }),
        ...d.data,
      })),
    );
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const header = [...(probes === undefined ? [] : ['AVAILABLE']), ...MATRIX_HEADER].map((h) => p.dim(h));
  const rows = backends.map((d, i) => {
    const cells = matrixRow(d.id, d.data).map((cell, col) =>
      col === 0 ? p.bold(cell) : cell === 'yes' ? p.green(cell) : cell === 'no' || cell === '—' ? p.dim(cell) : cell,
    );
    return probes === undefined ? cells : [availabilityCell(probes[i]!, p), ...cells];
  });
  writeLine(io.stdout, table([header, ...rows]));
  const hints =
    probes === undefined
      ? []
      : backends.flatMap((d, i) => (probes[i]!.hint === undefined ? [] : [`${d.id}: ${probes[i]!.hint}`]));
  if (hints.length > 0) writeLine(io.stdout, `\n${hints.map((h) => p.dim(h)).join('\n')}`);
  const history = track.flatMap((lines) => lines ?? []);
  if (history.length > 0)
    writeLine(
      io.stdout,
      `\ntrack record (learning/harness-outcomes.jsonl):\n${history.map((l) => `  ${l}`).join('\n')}`,
    );
  return EXIT.ok;
}

function availabilityCell(a: Availability, p: ReturnType<typeof painter>): string {
  if (a.available) return p.green(a.version === undefined ? 'yes' : `yes ${a.version}`);
  return a.status === 'missing' ? p.yellow('missing') : p.red(a.status);
}
