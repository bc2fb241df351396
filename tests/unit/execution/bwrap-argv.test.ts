import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgv } from '../../../engine/execution/sandbox-bwrap.js';
import type { SandboxBind, SandboxSpec } from '../../../engine/execution/index.js';

// Outside /tmp, which bwrap always hides first: these paths exist on the host as given.
const root = realpathSync(mkdtempSync('/var/tmp/neo-argv-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const neoHome = join(home, '.neo');
const ssh = join(home, '.ssh');
const project = join(home, 'code', 'proj');
for (const dir of [neoHome, ssh, join(project, '.neo-home'), join(root, 'cli', 'node_modules')])
  mkdirSync(dir, { recursive: true });

const spec = (binds: SandboxBind[], hide: string[]): SandboxSpec => ({
  cwd: '/',
  binds,
  hide,
  network: false,
  env: {},
});

/** The mount options of an argv, as `op path [at]` strings, in order. */
function mounts(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const op = argv[i]!;
    if (op === '--tmpfs') out.push(`tmpfs ${argv[++i]}`);
    else if (/^--(ro-)?bind(-try)?$/.test(op)) {
      const [from, at] = [argv[++i], argv[++i]];
      out.push(`${op.slice(2)} ${from}${from === at ? '' : ` -> ${at}`}`);
    } else if (op === '--') break;
  }
  return out;
}

describe('bwrapArgv: mount order keeps hidden trees hidden', () => {
  it('a bind inside a hidden tree shows over it', () => {
    expect(mounts(bwrapArgv(['true'], spec([{ path: project, write: true }], [home, neoHome])))).toEqual([
      'ro-bind /',
      'tmpfs /tmp',
      `tmpfs ${home}`,
      `bind ${project}`,
    ]);
  });

  it('a hidden tree inside a bind is hidden again after it, and binds inside that come after', () => {
    const argv = bwrapArgv(
      ['true'],
      spec([{ path: join(neoHome, 'io', 'out-1'), write: true, optional: true }, { path: root }], [home, neoHome, ssh]),
    );
    expect(mounts(argv)).toEqual([
      'ro-bind /',
      'tmpfs /tmp',
      `ro-bind ${root}`,
      `tmpfs ${home}`,
      `bind-try ${join(neoHome, 'io', 'out-1')}`,
    ]);
  });

  it('NEO_HOME inside the workspace is hidden again after the workspace', () => {
    const inside = join(project, '.neo-home');
    expect(mounts(bwrapArgv(['true'], spec([{ path: project, write: true }], [home, inside])))).toEqual([
      'ro-bind /',
      'tmpfs /tmp',
      `tmpfs ${home}`,
      `bind ${project}`,
      `tmpfs ${inside}`,
    ]);
  });

  it('a bind of a hidden path by name shows it, and what is hidden inside it stays hidden', () => {
    expect(mounts(bwrapArgv(['true'], spec([{ path: home }], [home, neoHome, ssh])))).toEqual([
      'ro-bind /',
      'tmpfs /tmp',
      `tmpfs ${home}`,
      `ro-bind ${home}`,
      `tmpfs ${neoHome}`,
      `tmpfs ${ssh}`,
    ]);
  });

  it('a hidden path that does not exist, or that a moved bind does not hold, gets no mount', () => {
    const moved = { path: join(root, 'cli'), at: home };
    expect(mounts(bwrapArgv(['true'], spec([moved], [join(root, 'missing'), neoHome])))).toEqual([
      'ro-bind /',
      'tmpfs /tmp',
      `ro-bind ${join(root, 'cli')} -> ${home}`,
    ]);
    // The moved tree does hold `node_modules`: hidden there, it is hidden inside too.
    expect(mounts(bwrapArgv(['true'], spec([moved], [join(home, 'node_modules')])))).toEqual([
      'ro-bind /',
      'tmpfs /tmp',
      `ro-bind ${join(root, 'cli')} -> ${home}`,
      `tmpfs ${join(home, 'node_modules')}`,
    ]);
  });
});
