/**
 * The two output modes. Human mode: results on stdout, warnings and errors on stderr, colour on
 * a TTY. JSON mode: exactly one document on stdout and nothing else, so scripts can parse it.
 */
import type { Writable } from 'node:stream';
import { CliError } from '../errors.js';
import type { JsonValue } from '../util/json.js';
import { colourEnabled, makeStyle, type Style } from './style.js';

export interface OutputStreams {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
}

export class Output {
  readonly json: boolean;
  readonly style: Style;
  readonly errStyle: Style;
  private readonly streams: OutputStreams;

  constructor(json: boolean, streams: OutputStreams, env: NodeJS.ProcessEnv) {
    this.json = json;
    this.streams = streams;
    this.style = makeStyle(!json && colourEnabled(streams.stdout, env));
    this.errStyle = makeStyle(!json && colourEnabled(streams.stderr, env));
  }

  /** Whether stderr is a terminal that can show progress. */
  get progressEnabled(): boolean {
    return !this.json && this.streams.stderr.isTTY === true;
  }

  get stderr(): Writable & { isTTY?: boolean } {
    return this.streams.stderr;
  }

  /** A human-mode line on stdout; silent in JSON mode. */
  line(text = ''): void {
    if (!this.json) this.streams.stdout.write(`${text}\n`);
  }

  /** A human-mode warning or note on stderr; silent in JSON mode. */
  warn(text: string): void {
    if (!this.json) this.streams.stderr.write(`${text}\n`);
  }

  /** The one JSON document of a run (JSON mode only). */
  document(value: JsonValue): void {
    if (this.json) this.streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Report a command error in the current mode. */
  failure(error: CliError): void {
    if (this.json) {
      const body: { [key: string]: JsonValue } = { error: error.message };
      if (error.hint) body.hint = error.hint;
      this.streams.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return;
    }
    // An abort is the user's own choice, not an error to diagnose.
    if (error.code === 'ABORTED') this.streams.stderr.write(`${error.message}\n`);
    else this.streams.stderr.write(`${this.errStyle.red('Error:')} ${error.message}\n`);
    if (error.hint) this.streams.stderr.write(`${this.errStyle.dim('Hint:')} ${error.hint}\n`);
  }
}
