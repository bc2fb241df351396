import { describe, expect, it } from 'vitest';
import { defaultProjectDir } from '../../../engine/flow/workspace/index.js';

describe('defaultProjectDir: where a flow without workspace.path works', () => {
  const home = '/home/u/.neo';
  it("a flow in a project's .neo/ works on the project that holds it", () => {
    expect(defaultProjectDir('/src/lib/.neo/flows', home)).toBe('/src/lib');
    expect(defaultProjectDir('/src/lib/.neo/flows/nightly', home)).toBe('/src/lib');
    expect(defaultProjectDir('/src/lib/.neo', home)).toBe('/src/lib');
  });
  it('any other flow works in its own folder', () => {
    expect(defaultProjectDir('/src/lib/examples/quickstart', home)).toBe('/src/lib/examples/quickstart');
    expect(defaultProjectDir('/src/lib/.neox/flows', home)).toBe('/src/lib/.neox/flows');
    expect(defaultProjectDir('/', home)).toBe('/');
  });
  it("NEO_HOME is the user layer, not a project's .neo: its flows work in their own folder", () => {
    expect(defaultProjectDir('/home/u/.neo/flows', home)).toBe('/home/u/.neo/flows');
    expect(defaultProjectDir('/elsewhere/.neo/flows', '/elsewhere/.neo')).toBe('/elsewhere/.neo/flows');
  });
});
