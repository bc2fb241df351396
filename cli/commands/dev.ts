import { relative, resolve } from 'node:path';
import {
  formatDiagnostics,
  hasErrors,
  loadDefinitions,
  summarizeDiagnostics,
  watchDefinitions,
  type ReloadEvent,
} from '../../engine/definitions/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { errorMessage } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeLine, type CommandIO } from '../io.js';

/** Watches every layer until Ctrl-C (exit 130); bad input is reported, never fatal. */
export async function run(io: CommandIO, paths: string[], options: { json?: boolean }): Promise<number> {
  const targets = paths.map((p) => resolve(io.cwd, p));
  const { set, diagnostics, loader } = await loadDefinitions({ cwd: io.cwd, home: neoHome(io.env), paths: targets });
  const p = painter(useColor(io.stdout, io.env));
  const colorErr = useColor(io.stderr, io.env);
  const rel = (file: string) => relative(io.cwd, file) || file;
  const emit = (event: Record<string, unknown>) =>
    writeLine(io.stdout, JSON.stringify({ at: new Date().toISOString(), ...event }));

  if (options.json) emit({ type: 'loaded', set: set.hash, definitions: set.all().length, diagnostics });
  else {
    if (diagnostics.length > 0) writeLine(io.stderr, formatDiagnostics(diagnostics, { color: colorErr, cwd: io.cwd }));
    writeLine(
      io.stdout,
      `${hasErrors(diagnostics) ? p.yellow('!') : p.green('✓')} ${set.all().length} definitions · set ${set.hash.slice(0, 8)}${diagnostics.length ? ` · ${summarizeDiagnostics(diagnostics)}` : ''}`,
    );
  }

  const onEvent = (event: ReloadEvent) => {
    if (options.json) {
      if (event.type === 'error') emit({ type: 'error', message: errorMessage(event.error) });
      else
        emit({
          type: event.type,
          files: event.files.map(rel),
          set: event.set.hash,
          ...('diagnostics' in event ? { diagnostics: event.diagnostics } : {}),
          ...(event.type === 'reloaded' ? { diff: event.diff } : {}),
        });
      return;
    }
    switch (event.type) {
      case 'reloaded':
        for (const file of event.files)
          writeLine(io.stdout, `${p.green('✓')} ${rel(file)} reloaded · set ${event.set.hash.slice(0, 8)}`);
        if (event.diagnostics.length > 0)
          writeLine(io.stderr, formatDiagnostics(event.diagnostics, { color: colorErr, cwd: io.cwd }));
        break;
      case 'rejected':
        writeLine(io.stderr, formatDiagnostics(event.diagnostics, { color: colorErr, cwd: io.cwd }));
        writeLine(
          io.stdout,
          `${p.red('✗')} ${event.files.map(rel).join(', ')}: ${summarizeDiagnostics(event.diagnostics)} · keeping set ${event.set.hash.slice(0, 8)}`,
        );
        break;
      case 'unchanged':
        writeLine(
          io.stdout,
          `${p.dim('·')} ${event.files.map(rel).join(', ')} unchanged · set ${event.set.hash.slice(0, 8)}`,
        );
        break;
      case 'error':
        writeLine(io.stderr, `${p.red('watch error')}: ${errorMessage(event.error)}`);
        break;
    }
  };
  const watcher = await watchDefinitions(loader, { set, diagnostics }, onEvent, { paths: targets });
  await watcher.ready;
  if (!options.json) writeLine(io.stdout, p.dim('watching for changes · Ctrl-C to stop'));
  else emit({ type: 'watching' });
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop());
    process.once('SIGTERM', () => resolveStop());
  });
  await watcher.close();
  return EXIT.interrupted;
}
