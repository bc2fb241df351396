import { setFlagsFromString } from 'node:v8';

/**
 * V8 doubles the young generation (up to 16 MB a semi-space) each time as many bytes have survived
 * scavenges as it holds; a run's steps keep a little of each step alive across a scavenge or two,
 * and over 100 sequential steps it grew to 8 MB a semi-space: 16 MB of that run's 69 MB peak RSS,
 * for garbage the start-up size collects as well (docs/architecture.md, "Validate and peak
 * memory"). The size limits are read once at start (`--max-semi-space-size` set later changes
 * nothing, and `neo` is started as `node neo.js`); the growth factor is read at each growth.
 *
 * The binary sets it before it loads any chunk, for every command: V8 checks a code cache against
 * the flags it was made under, so the build's training runs and every later start must agree (a
 * flag set by one command only, mid-way, made the caches the build trained unusable).
 */
export function setHeapFlags(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
