import { useState } from 'preact/hooks';
import type { Diff } from '../types';

/** A unified diff split per file (`diff --git a/x b/y` headers); lines keep their order. */
function splitFiles(unified: string): Array<{ header: string; lines: string[] }> {
  const files: Array<{ header: string; lines: string[] }> = [];
  for (const line of unified.split('\n')) {
    if (line.startsWith('diff --git ') || files.length === 0) files.push({ header: line, lines: [] });
    if (!line.startsWith('diff --git ')) files.at(-1)!.lines.push(line);
  }
  return files.filter((f) => f.header !== '' || f.lines.some((l) => l !== ''));
}

function lineClass(line: string): string {
  if (line.startsWith('@@')) return 'd-hunk';
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('index ')) return 'd-meta';
  if (line.startsWith('+')) return 'd-add';
  if (line.startsWith('-')) return 'd-del';
  if (line.startsWith('…') || line.startsWith('\\')) return 'd-note';
  return 'd-ctx';
}

/**
 * The diff of a turn or a step: the file list (status A/M/D/R with line counts), then the
 * unified diff rendered line by line, and a marker when it was cut at 64 KB. Text only: the
 * diff is agent output and never becomes markup.
 */
export function DiffView({ diff }: { diff: Diff }) {
  const unified = diff.unifiedDiff ?? diff.unified ?? '';
  const [open, setOpen] = useState(true);
  return (
    <div class="diff" data-testid="diff-view">
      <div class="diff-summary">{diff.summaryLine ?? diff.summary ?? `${diff.files.length} files`}</div>
      <ul class="diff-files">
        {diff.files.map((f) => (
          <li key={f.path}>
            <span
              class={`fs fs-${f.status}`}
              title={{ A: 'added', M: 'modified', D: 'deleted', R: 'renamed' }[f.status] ?? f.status}
            >
              {f.status}
            </span>{' '}
            <code>{f.oldPath === undefined ? f.path : `${f.oldPath} → ${f.path}`}</code>
            {f.insertions !== undefined || f.deletions !== undefined ? (
              <span class="counts">
                {' '}
                <span class="plus">+{f.insertions ?? 0}</span> <span class="minus">−{f.deletions ?? 0}</span>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {unified === '' ? (
        <div class="dim">
          no line diff{diff.source === 'tool-events' ? ' (paths from the agent’s edit tools; not a git work tree)' : ''}
        </div>
      ) : (
        <>
          <button class="link" onClick={() => setOpen(!open)}>
            {open ? 'hide lines' : 'show lines'}
          </button>
          {open
            ? splitFiles(unified).map((file, i) => (
                <pre class="diff-file" key={i}>
                  {file.header ? <div class="d-file">{file.header}</div> : null}
                  {file.lines.map((line, j) => (
                    <div class={lineClass(line)} key={j}>
                      {line === '' ? ' ' : line}
                    </div>
                  ))}
                </pre>
              ))
            : null}
        </>
      )}
      {diff.truncated ? <div class="truncated">diff truncated at 64 KB — the rest is in the working tree</div> : null}
    </div>
  );
}
