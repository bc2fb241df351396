import { Option } from 'commander';

/** `--engine`: where a run (and its sessions) lives, the same on every command that takes it. */
export const engineOption = () =>
  new Option('--engine <engine>', 'where the run lives: local (this process, the default) or dbos (docs/scale-out.md)')
    .choices(['local', 'dbos'])
    .default('local');

export const databaseUrlOption = () =>
  new Option('--database-url <url>', "the dbos engine's PostgreSQL (default: NEO_DATABASE_URL, else `neo db up`'s)");
