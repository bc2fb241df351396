import { mkdtempSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { programBind } from '../../../engine/execution/index.js';

describe('programBind: the program a confined process runs stays readable', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'neo-program-')));
  const pkg = join(root, 'clis', 'droid');
  mkdirSync(join(pkg, 'node_modules', 'droid', 'bin'), { recursive: true });
  mkdirSync(join(pkg, 'node_modules', '.bin'));
  writeFileSync(join(pkg, 'node_modules', 'droid', 'bin', 'droid'), '#!/bin/sh\n');
  symlinkSync('../droid/bin/droid', join(pkg, 'node_modules', '.bin', 'droid'));

  it('binds the outermost node_modules, read-only: the package and its siblings', () => {
    expect(programBind(join(pkg, 'node_modules', '.bin', 'droid'), [])).toEqual([{ path: join(pkg, 'node_modules') }]);
  });

  it('binds the folder of a program outside any package', () => {
    writeFileSync(join(root, 'tool'), '#!/bin/sh\n');
    expect(programBind(join(root, 'tool'), [])).toEqual([{ path: root }]);
  });

  it('adds nothing for a program on PATH, a missing one, or one a bind already shows', () => {
    expect(programBind('droid', [])).toEqual([]);
    expect(programBind(join(root, 'missing'), [])).toEqual([]);
    expect(programBind(join(pkg, 'node_modules', '.bin', 'droid'), [{ path: root, write: true }])).toEqual([]);
  });
});

describe('programBind never shows a hidden tree', () => {
  // `npm install` in the home folder: HOME/node_modules/.bin/codex, with ~/.ssh and NEO_HOME beside it.
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'neo-program-home-')));
  const neoHome = join(home, '.neo');
  mkdirSync(join(home, 'node_modules', '@openai', 'codex', 'bin'), { recursive: true });
  mkdirSync(join(home, 'node_modules', '.bin'));
  mkdirSync(neoHome);
  writeFileSync(join(home, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'), '#!/usr/bin/env node\n');
  symlinkSync('../@openai/codex/bin/codex.js', join(home, 'node_modules', '.bin', 'codex'));
  writeFileSync(join(home, 'tool'), '#!/bin/sh\n');

  it('a CLI installed under the home: its node_modules, never the home itself', () => {
    const bind = programBind(join(home, 'node_modules', '.bin', 'codex'), [], [home, neoHome]);
    expect(bind).toEqual([{ path: join(home, 'node_modules') }]);
  });

  it('a program lying in a hidden folder (or in one above a hidden tree) is shown alone', () => {
    expect(programBind(join(home, 'tool'), [], [home, neoHome])).toEqual([{ path: join(home, 'tool') }]);
    expect(programBind(join(home, 'tool'), [], [neoHome])).toEqual([{ path: join(home, 'tool') }]);
  });

  it('a hidden path given through a link still counts', () => {
    const link = join(realpathSync(mkdtempSync(join(tmpdir(), 'neo-program-link-'))), 'home');
    symlinkSync(home, link);
    expect(programBind(join(home, 'tool'), [], [link])).toEqual([{ path: join(home, 'tool') }]);
  });
});
