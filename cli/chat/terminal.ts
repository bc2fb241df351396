/**
 * The interactive chat over one session: node:readline for input (a line at a time, with
 * history and editing), the session's events printed as they arrive above the prompt, asks
 * answered in place, typed text steering a running turn, Ctrl-C interrupting it (a second one,
 * or one at rest, exits with the session stopped and saved).
 *
 * Modes: `idle` (a line starts the next turn), `turn` (a line steers), `ask` (a line answers the
 * pending ask), `closing`. A reader keeps one read-turn outstanding for as long as the session
 * is live, so every result — the chat's own turn, or one a late steer started — is consumed once.
 */
import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isPosture, type Posture } from '../../engine/posture/index.js';
import type { ReadTurnResult } from '../../engine/session/index.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { EXIT } from '../exit-codes.js';
import type { CommandIO, painter } from '../io.js';
import { alwaysPosture, parseAskReply } from './ask-answer.js';
import { askLines, bannerLines, errorLines, ReceiptPrinter, turnFooter } from './receipts.js';
import type { ChatStart, SessionLink } from './session-link.js';
import { genericResultLines, helpLines, opInContract, parseSlash, type OptionalOp } from './slash.js';

type Paint = ReturnType<typeof painter>;
type Clarification = Extract<ReadTurnResult, { kind: 'clarification' }>;

/** The answer to an ask once input has ended: the safe one. */
const NO_ONE_TO_ANSWER = 'n: no one at the terminal to answer';

const PROMPT = { idle: '> ', turn: '>> ', ask: 'allow? ' } as const;

export interface ChatTerminalOptions {
  io: CommandIO;
  input: Readable & { isTTY?: boolean };
  link: SessionLink;
  /** What each start asks for; `resumeSessionId` is the session a resumed chat continues. */
  start: ChatStart;
  /** The recorded session a `--resume` continues (printed in the resume hint until a new one starts). */
  resumedFrom?: string;
  p: Paint;
}

export class ChatTerminal {
  readonly #o: ChatTerminalOptions;
  readonly #p: Paint;
  readonly #receipts: ReceiptPrinter;
  #rl!: Interface;
  #terminal = false;
  #mode: 'idle' | 'turn' | 'ask' | 'closing' = 'idle';
  #start: ChatStart;
  #ask: { result: Clarification; always: Posture | undefined; done: () => void } | undefined;
  #interrupting = false;
  /** No more lines will come: asks are denied, and the chat exits when the turn ends. */
  #inputClosed = false;
  /** Lines typed mid-turn for a backend whose guidance only reaches the next turn. */
  #queued: string[] = [];
  #work: Promise<void> = Promise.resolve();
  #reader: Promise<void> | undefined;
  /** A start in flight: an exit waits for it, so the session it makes is stopped, not left behind. */
  #starting: Promise<unknown> | undefined;
  /** What a fast first turn reported before its start returned: printed after the session line. */
  #held: string[] | undefined;
  #readAbort = new AbortController();
  #finish!: (code: number) => void;

  constructor(options: ChatTerminalOptions) {
    this.#o = options;
    this.#p = options.p;
    this.#receipts = new ReceiptPrinter(options.p);
    this.#start = { ...options.start };
  }

  run(): Promise<number> {
    const { io, input } = this.#o;
    this.#terminal = input.isTTY === true && io.stdout.isTTY === true;
    this.#rl = createInterface({ input, output: io.stdout, terminal: this.#terminal, prompt: PROMPT.idle });
    const done = new Promise<number>((resolve) => (this.#finish = resolve));
    const unsubscribe = this.#o.link.onEvent((live) => this.#onEvent(live.event));
    this.#rl.on('line', (line) => {
      this.#work = this.#work.then(() => this.#onLine(line)).catch((error: unknown) => this.#printError(error));
    });
    // In a terminal readline reads Ctrl-C as a key (the tty sends no signal to neo or to the
    // commands its agent runs); piped input gets the real signal.
    this.#rl.on('SIGINT', () => void this.#onCtrlC());
    // End of input (Ctrl-D, or the end of piped input): the running turn finishes, then the chat exits.
    this.#rl.on('close', () => {
      this.#inputClosed = true;
      this.#work = this.#work.then(() => {
        if (this.#mode === 'ask') return this.#answer(NO_ONE_TO_ANSWER);
        return this.#mode === 'turn' ? undefined : this.#exit();
      });
    });
    const onSignal = (): void => void this.#onCtrlC();
    const onTerm = (): void => void this.#exit();
    if (!this.#terminal) process.on('SIGINT', onSignal);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onTerm);
    this.#print(bannerLines(this.#start, this.#o.resumedFrom, this.#p));
    return done.finally(() => {
      unsubscribe();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onTerm);
    });
  }

  async #onLine(line: string): Promise<void> {
    if (this.#mode === 'closing') return;
    if (this.#mode === 'ask') return this.#answer(line);
    const text = line.trim();
    if (text === '') return this.#prompt();
    if (text.startsWith('/')) return this.#slash(text);
    if (this.#mode === 'turn') return this.#steer(text);
    return this.#send(text);
  }

  /** A message at rest: the first one starts (or resumes) the session, later ones are its next turns. */
  async #send(text: string): Promise<void> {
    const { link } = this.#o;
    this.#setMode('turn');
    try {
      if (link.isLive()) {
        await link.guide(text);
        return;
      }
      const previous = link.sessionId;
      const starting = link.start(text, this.#start);
      this.#starting = starting;
      this.#held = [];
      const started = await starting;
      // Later starts (after the agent ended or its round budget ran out) continue this one.
      this.#start = { ...this.#start, resumeSessionId: undefined };
      const line = `session ${started.sessionId} · ${started.backend} · posture ${started.posture} (ceiling ${started.maxPosture})`;
      this.#print([this.#p.dim(line + (previous === undefined ? '' : ` · continues ${previous}`)), ...this.#held]);
      this.#readAbort = new AbortController();
      this.#reader = this.#readLoop(this.#readAbort.signal);
    } catch (error) {
      this.#setMode('idle');
      this.#printError(error);
    } finally {
      this.#held = undefined;
    }
  }

  async #steer(text: string): Promise<void> {
    const how = this.#o.link.steering();
    if (how !== 'mid-turn') {
      this.#queued.push(text);
      return this.#print([this.#p.dim('(queued: this backend takes guidance at the end of the turn)')]);
    }
    await this.#o.link.guide(text);
    this.#print([this.#p.dim('(steering the running turn)')]);
  }

  /** Reads every turn result while the session lives; asks are answered before the next read. */
  async #readLoop(signal: AbortSignal): Promise<void> {
    const { link } = this.#o;
    for (;;) {
      let result: ReadTurnResult;
      try {
        result = await link.readTurn(signal);
      } catch (error) {
        if (signal.aborted || this.#mode === 'closing') return;
        this.#printError(error);
        this.#setMode('idle');
        return;
      }
      if (result.kind === 'clarification') {
        await this.#onAsk(result);
        continue;
      }
      await this.#onTurnEnd(result);
      if (!link.isLive()) return;
    }
  }

  #onAsk(result: Clarification): Promise<void> {
    if (this.#mode === 'closing') return Promise.resolve();
    const postures = this.#o.link.postures();
    const always =
      postures === undefined
        ? undefined
        : alwaysPosture(result.ask, postures.posture, postures.ceiling, postures.expressible);
    return new Promise((resolve) => {
      this.#ask = { result, always, done: resolve };
      this.#setMode('ask');
      this.#print(askLines(result, always, this.#p));
      // No one is left to answer: the safe answer.
      if (this.#inputClosed) this.#work = this.#work.then(() => this.#answer(NO_ONE_TO_ANSWER));
    });
  }

  async #answer(line: string): Promise<void> {
    const ask = this.#ask;
    if (ask === undefined) return;
    const reply = parseAskReply(line, ask.always !== undefined);
    if (reply === undefined) return this.#print(askLines(ask.result, ask.always, this.#p));
    const { link } = this.#o;
    try {
      if (reply.allow && reply.always && ask.always !== undefined) {
        await link.setPosture(ask.always);
        this.#print([this.#p.dim(`(posture ${ask.always}: asks like this are allowed from now on)`)]);
      }
      await link.answer(ask.result.clarificationId, reply.allow, reply.allow ? undefined : reply.reason);
      this.#print([this.#p.dim(reply.allow ? '(allowed)' : '(denied)')]);
    } catch (error) {
      this.#printError(error);
    } finally {
      this.#ask = undefined;
      if (this.#mode === 'ask') this.#setMode('turn');
      ask.done();
    }
  }

  async #onTurnEnd(result: Exclude<ReadTurnResult, Clarification>): Promise<void> {
    const p = this.#p;
    const lines: string[] = [];
    if (this.#interrupting) lines.push(p.yellow('(interrupted)'));
    else if (result.kind === 'error')
      lines.push(p.red(terminalSafe(`error: ${result.code === undefined ? '' : `${result.code}: `}${result.message}`)));
    else if (result.kind === 'ended')
      lines.push(p.dim('(the agent ended the session; your next message continues it in a new one)'));
    else if (result.kind === 'max_rounds')
      lines.push(
        p.dim(`(round budget reached after ${result.rounds} rounds; your next message continues in a new session)`),
      );
    lines.push(...turnFooter(result, p));
    this.#interrupting = false;
    if (!this.#o.link.isLive()) {
      const external = await this.#o.link.externalId();
      if (external !== undefined) this.#start = { ...this.#start, resumeSessionId: external };
    }
    if (this.#mode === 'closing') return;
    this.#setMode('idle', false);
    this.#print(lines);
    const queued = this.#queued.splice(0);
    if (queued.length > 0) this.#work = this.#work.then(() => this.#send(queued.join('\n\n')));
    else if (this.#inputClosed) this.#work = this.#work.then(() => this.#exit());
  }

  #onEvent(event: Parameters<ReceiptPrinter['lines']>[0]): void {
    if (this.#mode === 'closing') return;
    // A turn the chat did not start (guidance that arrived as a turn ended starts the next one).
    if (this.#mode === 'idle' && ['text', 'tool_use', 'reasoning', 'usage'].includes(event.type))
      this.#setMode('turn', false);
    const lines = this.#receipts.lines(event);
    if (this.#held !== undefined) this.#held.push(...lines);
    else if (lines.length > 0) this.#print(lines);
  }

  async #slash(text: string): Promise<void> {
    const command = parseSlash(text);
    const { link } = this.#o;
    const p = this.#p;
    switch (command.name) {
      case 'help':
        return this.#print(helpLines());
      case 'exit':
        return this.#exit();
      case 'status': {
        const postures = link.postures();
        if (link.sessionId === undefined) return this.#print(['no session yet: type a message to start one']);
        return this.#print([
          `session ${link.sessionId} · ${link.started?.backend ?? '?'} · ${link.state() ?? 'stopped'}`,
          postures === undefined ? '' : `posture ${postures.posture} (ceiling ${postures.ceiling})`,
        ]);
      }
      case 'posture':
        return this.#posture(command.posture);
      case 'optional':
        return this.#optional(command.command, command.spec);
      case 'unknown':
        return this.#print([p.yellow(`unknown command /${terminalSafe(command.command)}; /help lists them`)]);
    }
  }

  async #posture(wanted: string | undefined): Promise<void> {
    const { link } = this.#o;
    const postures = link.postures();
    if (wanted === undefined) {
      return this.#print([
        postures === undefined
          ? `posture ${this.#start.posture ?? '(the ceiling)'} at the next start`
          : `posture ${postures.posture} (ceiling ${postures.ceiling})`,
      ]);
    }
    if (!isPosture(wanted))
      return this.#print([
        this.#p.yellow(`unknown posture ${terminalSafe(wanted)}: plan, default, acceptEdits or full`),
      ]);
    if (postures === undefined || !link.isLive()) {
      // The start checks it against the ceiling, like any other.
      this.#start = { ...this.#start, posture: wanted };
      return this.#print([`posture ${wanted} at the next start`]);
    }
    try {
      await link.setPosture(wanted);
      this.#print([`posture ${wanted} (ceiling ${postures.ceiling})`]);
    } catch (error) {
      this.#printError(error);
    }
  }

  async #optional(name: string, spec: OptionalOp): Promise<void> {
    const { link } = this.#o;
    if (!opInContract(spec.op))
      return this.#print([
        this.#p.yellow(`/${name} is not available: this neo's session contract has no \`${spec.op}\` op`),
      ]);
    if (spec.needsSession && (link.sessionId === undefined || !link.isLive()))
      return this.#print([this.#p.yellow(`/${name}: no live session yet`)]);
    try {
      const result = await link.optional(spec.op, {
        ...(spec.needsSession ? { sessionId: link.sessionId } : { cwd: this.#start.cwd }),
      });
      this.#print(genericResultLines(result).map((line) => terminalSafe(line)));
    } catch (error) {
      this.#printError(error, `/${name} is not available`);
    }
  }

  async #onCtrlC(): Promise<void> {
    if (this.#mode === 'closing') return;
    if (this.#mode === 'idle' || this.#interrupting || !this.#o.link.isLive()) return this.#exit();
    this.#interrupting = true;
    this.#print([this.#p.yellow('interrupting the turn… (Ctrl-C again exits)')]);
    const ask = this.#ask;
    this.#ask = undefined;
    if (this.#mode === 'ask') this.#setMode('turn');
    try {
      await this.#o.link.interrupt();
    } catch (error) {
      this.#printError(error);
    }
    // The interrupt withdrew the ask: the reader goes on to the turn's end.
    ask?.done();
  }

  /** Stops the session (the transcript and record are saved), prints how to resume, and ends. */
  async #exit(): Promise<void> {
    if (this.#mode === 'closing') return;
    this.#setMode('closing', false);
    const { link, io } = this.#o;
    this.#ask?.done();
    await this.#starting?.catch(() => undefined);
    this.#readAbort.abort();
    try {
      if (link.sessionId !== undefined && link.isLive()) await link.stop();
    } catch (error) {
      this.#printError(error);
    }
    await this.#reader;
    this.#rl.close();
    const id = link.sessionId ?? this.#o.resumedFrom;
    io.stdout.write('\n');
    if (id !== undefined) io.stdout.write(`session saved · resume with: neo chat --resume ${id}\n`);
    this.#finish(EXIT.ok);
  }

  #setMode(mode: 'idle' | 'turn' | 'ask' | 'closing', redraw = true): void {
    this.#mode = mode;
    if (mode === 'closing') return;
    this.#rl.setPrompt(PROMPT[mode]);
    if (redraw) this.#prompt();
  }

  #prompt(): void {
    // Piped input gets no prompts: the output stays the conversation alone.
    if (this.#terminal && this.#mode !== 'closing' && !this.#inputClosed) this.#rl.prompt(true);
  }

  /** Prints above the prompt, keeping what the person has typed so far. */
  #print(lines: string[]): void {
    const out = this.#o.io.stdout;
    if (this.#terminal) {
      clearLine(out, 0);
      cursorTo(out, 0);
    }
    for (const line of lines) out.write(`${line}\n`);
    this.#prompt();
  }

  #printError(error: unknown, lead?: string): void {
    this.#print(errorLines(error, this.#p, lead));
  }
}
