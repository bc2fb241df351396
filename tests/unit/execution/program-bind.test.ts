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

  it('binds the install tree above the outermost node_modules, read-only', () => {
    expect(programBind(join(pkg, 'node_modules', '.bin', 'droid'), [])).toEqual([{ path: pkg }]);
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
