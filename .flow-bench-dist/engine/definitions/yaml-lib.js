import { createRequire } from 'node:module';
let loaded;
/**
 * The `yaml` package, loaded on first use. It is ~60 modules; a command whose definitions all
 * come from the packaged snapshot never needs it, so start-up does not pay for it.
 */
export function yamlLib() {
    loaded ??= createRequire(import.meta.url)('yaml');
    return loaded;
}
