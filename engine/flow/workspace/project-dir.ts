import { basename, dirname, resolve } from 'node:path';

/**
 * The folder a flow's steps work in when the plan names no `workspace.path`. A flow kept in a
 * project's `.neo/` folder (`<repo>/.neo/flows/fix.yaml`, where `neo init` writes one) works on
 * the project that holds that `.neo/`: its agent is there to edit the repository, not the folder
 * of definitions. Any other flow works in its own folder, the convention of a `plan.yaml` kept
 * beside the project it drives (a package of a monorepo, an example). NEO_HOME (`~/.neo`) is
 * the user layer, not a project's: a flow kept there works in its own folder.
 */
export function defaultProjectDir(planDir: string, home: string): string {
  const userLayer = resolve(home);
  for (let dir = resolve(planDir); ; dir = dirname(dir)) {
    if (basename(dir) === '.neo') return dir === userLayer ? resolve(planDir) : dirname(dir);
    if (dirname(dir) === dir) return resolve(planDir);
  }
}
