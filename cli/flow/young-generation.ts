import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at the size it has now for the rest of this process. V8 doubles the
 * young generation (up to 16 MB a semi-space) each time as many bytes have survived scavenges as
 * it holds, and a run's steps keep a little of each step alive across a scavenge or two (its
 * command's environment, its events, the state they fold into): over 100 sequential steps it grew
 * to 8 MB a semi-space, 16 MB of the process's 69 MB peak RSS, for garbage that a 1 MB
 * semi-space collects as well (docs/architecture.md, "Validate and peak memory"). The size
 * limits are read once at start (`--max-semi-space-size` set later changes nothing, and `neo` is
 * started as `node neo.js`); the growth factor is read at each growth, so it holds from here.
 */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
