import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import {
  collapseProtect,
  expandProtect,
  PROTECT_PRESET_NAMES,
  PROTECT_PRESETS,
} from '../../../engine/posture/index.js';

describe('protect presets', () => {
  it('expand in place, globs kept as written, duplicates dropped; an unknown preset is named', () => {
    expect(expandProtect(['test/**', '@go', '**/go.mod', '@nope'])).toEqual({
      globs: ['test/**', '**/go.mod', '**/go.sum', '**/go.work', '**/go.work.sum'],
      unknown: ['@nope'],
    });
    expect(PROTECT_PRESET_NAMES).toEqual(['@node', '@python', '@go', '@rust']);
    expect(expandProtect(['@constructor', '@toString']).unknown).toEqual(['@constructor', '@toString']);
  });

  it('collapse back to the presets held whole, for display; a preset held in part stays globs', () => {
    const globs = expandProtect(['test/**', '@go', '@node']).globs;
    expect(collapseProtect(globs)).toEqual(['test/**', '@go', '@node']);
    expect(collapseProtect(['**/go.mod', 'src/**'])).toEqual(['**/go.mod', 'src/**']);
  });

  it('cover what a runner reads besides the tests, at any depth', () => {
    const matches = (preset: string, path: string) => picomatch([...PROTECT_PRESETS[preset]!], { dot: true })(path);
    for (const path of [
      'package.json',
      'packages/a/package.json',
      '.npmrc',
      'yarn.lock',
      'pnpm-lock.yaml',
      'bun.lockb',
      '.yarnrc.yml',
      '.pnpmfile.cjs',
      'jest.config.js',
      'vitest.config.mts',
      '.mocharc.yml',
      'playwright.config.ts',
      'karma.conf.js',
      'babel.config.json',
      '.babelrc',
      'tsconfig.json',
      'tsconfig.build.json',
      '.nvmrc',
      '.node-version',
    ])
      expect(matches('node', path), path).toBe(true);
    expect(matches('node', 'src/index.js')).toBe(false);
    for (const path of [
      'pyproject.toml',
      'setup.py',
      'setup.cfg',
      'tox.ini',
      'pytest.ini',
      'pytest.toml',
      'pkg/.pytest.toml',
      'tests/unit/conftest.py',
      'requirements-dev.txt',
      'poetry.lock',
      'uv.lock',
    ])
      expect(matches('python', path), path).toBe(true);
    expect(matches('python', 'src/app.py')).toBe(false);
    for (const path of ['go.mod', 'go.sum', 'tools/go.mod']) expect(matches('go', path), path).toBe(true);
    for (const path of ['Cargo.toml', 'crates/x/Cargo.toml', 'Cargo.lock', 'build.rs', '.cargo/config.toml'])
      expect(matches('rust', path), path).toBe(true);
  });
});
