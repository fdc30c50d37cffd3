/**
 * Interactive questions on a terminal. Only ever called on an interactive run (TTY stdin, no
 * --json); callers decide what a non-interactive run does instead.
 *
 * Written for this CLI rather than taken from a prompt library, because the behaviour at the
 * edges is what scripts and terminals depend on:
 * - end of input (Ctrl-D, or stdin closing) and Ctrl-C abort the command with "Aborted." and
 *   exit 1 before anything is changed, instead of leaving a promise that never settles and an
 *   exit code of 0;
 * - Enter is accepted however it arrives: `\r` in raw mode, or `\n` when it was typed before
 *   the prompt was drawn (the terminal had already turned it into a newline) or sent by a
 *   script; keys typed ahead of one prompt stay queued for the next;
 * - nothing is wrapped by hand: the terminal wraps long lines, and a terminal that reports 0
 *   columns is treated as COLUMNS (else 80) wide when redrawing.
 */
import { CliError } from '../errors.js';
import { parseKeys, rowsOf, terminalColumns, type Key } from './keys.js';
import { colourEnabled, makeStyle, type Style } from './style.js';

export function aborted(): CliError {
  return new CliError('ABORTED', 'Aborted.');
}

/** Keys read but not yet used (typed ahead of a prompt), and an unfinished escape sequence. */
const queue: Key[] = [];
let partial = '';
let inputEnded = false;

interface Terminal {
  out: NodeJS.WriteStream;
  style: Style;
  columns(): number;
}

function terminal(): Terminal {
  // Prompts belong on the terminal: stdout when it is one, else stderr (stdout may be a file).
  const out = process.stdout.isTTY ? process.stdout : process.stderr;
  return { out, style: makeStyle(colourEnabled(out, process.env)), columns: () => terminalColumns(out.columns, process.env) };
}

/**
 * The keyboard, in raw mode from before a prompt is drawn until it is answered, so nothing the
 * user types is echoed by the terminal (a secret least of all). Keys left over when a prompt is
 * answered stay queued for the next one.
 */
class Keyboard {
  private readonly input = process.stdin;
  private readonly wasRaw: boolean;
  private handler: ((key: Key) => void) | undefined;

  constructor() {
    this.wasRaw = this.input.isTTY ? this.input.isRaw : false;
    if (this.input.isTTY) this.input.setRawMode(true);
  }

  private readonly onData = (chunk: string | Buffer): void => {
    const parsed = parseKeys(partial + chunk.toString());
    partial = parsed.rest;
    queue.push(...parsed.keys);
    this.drain();
  };

  private readonly onEnd = (): void => {
    inputEnded = true;
    queue.push({ name: 'eof' });
    this.drain();
  };

  private drain(): void {
    while (this.handler && queue.length > 0) this.handler(queue.shift() as Key);
  }

  /** Feeds keys to `handle` until it returns true (or throws). */
  read(handle: (key: Key) => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const stop = (error?: unknown): void => {
        this.handler = undefined;
        this.input.off('data', this.onData);
        this.input.off('end', this.onEnd);
        this.input.off('error', stop);
        this.input.pause();
        if (error === undefined) resolve();
        else reject(error);
      };
      this.handler = (key) => {
        try {
          if (handle(key)) stop();
        } catch (error) {
          stop(error);
        }
      };
      if (inputEnded) queue.push({ name: 'eof' });
      this.drain();
      if (!this.handler) return;
      this.input.on('data', this.onData);
      this.input.on('end', this.onEnd);
      this.input.on('error', stop);
      this.input.resume();
    });
  }

  close(): void {
    if (this.input.isTTY) this.input.setRawMode(this.wasRaw);
  }
}

/** Draws a prompt in place: each frame replaces the previous one. */
class Frame {
  private rows = 0;
  constructor(
    private readonly term: Terminal,
    private readonly hideCursor: boolean,
  ) {
    if (hideCursor) term.out.write('\u001b[?25l');
  }

  draw(lines: string[]): void {
    let text = '';
    if (this.rows > 0) text += `\r${this.rows > 1 ? `\u001b[${this.rows - 1}A` : ''}\u001b[J`;
    text += lines.join('\n');
    this.term.out.write(text);
    this.rows = rowsOf(lines, this.term.columns());
  }

  close(lines: string[]): void {
    this.draw(lines);
    this.term.out.write(`\n${this.hideCursor ? '\u001b[?25h' : ''}`);
  }
}

type Step<T> = { done: false } | { done: true; value: T };

/**
 * One question: `render` draws the live state, `onKey` moves it on, `summary` is what stays on
 * screen once it is answered. End of input and Ctrl-C abort.
 */
async function ask<T>(
  message: string,
  hideCursor: boolean,
  render: (t: Terminal) => string[],
  onKey: (key: Key) => Step<T>,
  summary: (value: T) => string,
): Promise<T> {
  const term = terminal();
  const s = term.style;
  const keyboard = new Keyboard();
  const frame = new Frame(term, hideCursor);
  const head = (mark: string): string => `${mark}  ${message}`;
  let result: { value: T } | undefined;
  let abort = false;
  try {
    frame.draw([head(s.cyan('◆')), ...render(term)]);
    await keyboard.read((key) => {
      if (key.name === 'eof' || key.name === 'interrupt') {
        abort = true;
        return true;
      }
      const step = onKey(key);
      if (step.done) {
        result = { value: step.value };
        return true;
      }
      frame.draw([head(s.cyan('◆')), ...render(term)]);
      return false;
    });
  } finally {
    keyboard.close();
    if (result) frame.close([head(s.green('◇')), `│  ${summary(result.value)}`]);
    else frame.close([head(s.red('■')), `│  ${s.dim('aborted')}`]);
  }
  if (abort || !result) throw aborted();
  return result.value;
}

export async function askConfirm(message: string, initialValue: boolean): Promise<boolean> {
  let value = initialValue;
  return ask<boolean>(
    message,
    true,
    (t) => [`│  ${value ? `${t.style.green('●')} Yes` : `${t.style.dim('○')} Yes`} / ${value ? `${t.style.dim('○')} No` : `${t.style.green('●')} No`}`],
    (key) => {
      if (key.name === 'enter') return { done: true, value };
      if (key.name === 'char' && /^[yn]$/i.test(key.char)) return { done: true, value: key.char.toLowerCase() === 'y' };
      if (key.name === 'left' || key.name === 'right' || key.name === 'up' || key.name === 'down') value = !value;
      return { done: false };
    },
    (answer) => (answer ? 'Yes' : 'No'),
  );
}

function editLine(current: string, key: Key): string {
  if (key.name === 'backspace') return [...current].slice(0, -1).join('');
  if (key.name === 'char') return current + key.char;
  return current;
}

export async function askSecret(message: string): Promise<string> {
  let value = '';
  return ask<string>(
    message,
    false,
    () => [`│  ${'•'.repeat([...value].length)}`],
    (key) => {
      if (key.name === 'enter') return { done: true, value };
      value = editLine(value, key);
      return { done: false };
    },
    (answer) => '•'.repeat(Math.min([...answer].length, 12)),
  );
}

export async function askText(message: string, defaultValue: string): Promise<string> {
  let value = '';
  return ask<string>(
    message,
    false,
    (t) => [`│  ${value === '' ? t.style.dim(defaultValue) : value}`],
    (key) => {
      if (key.name === 'enter') return { done: true, value: value === '' ? defaultValue : value };
      value = editLine(value, key);
      return { done: false };
    },
    (answer) => answer,
  );
}

export async function askSelect<T extends string>(message: string, options: { value: T; label: string; hint?: string }[], initialValue: T): Promise<T> {
  let index = Math.max(0, options.findIndex((o) => o.value === initialValue));
  const label = (i: number): string => {
    const o = options[i];
    return o ? `${o.label}${o.hint ? ` (${o.hint})` : ''}` : '';
  };
  return ask<T>(
    message,
    true,
    (t) => options.map((_, i) => `│  ${i === index ? `${t.style.green('●')} ${label(i)}` : `${t.style.dim('○')} ${label(i)}`}`),
    (key) => {
      const chosen = options[index];
      if (key.name === 'enter' && chosen) return { done: true, value: chosen.value };
      if (key.name === 'up' || key.name === 'left') index = (index - 1 + options.length) % options.length;
      if (key.name === 'down' || key.name === 'right') index = (index + 1) % options.length;
      return { done: false };
    },
    (answer) => label(options.findIndex((o) => o.value === answer)),
  );
}
