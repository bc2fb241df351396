/** The serve group's command module, loaded only when `neo serve` runs. */
export * as serve from '../commands/serve.js';
