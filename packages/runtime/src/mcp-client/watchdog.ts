/**
 * @module mcp-client/watchdog
 * Keeps a stdio MCP server from outliving the runtime. The runtime spawns a small Node
 * watchdog, which starts the server in a process group of its own and ends that whole group
 * (the server and anything it started, e.g. `npx` and its node child) when:
 *
 * - the runtime closes the connection or asks it to stop (SIGTERM, SIGINT, SIGHUP);
 * - the runtime dies, even by `kill -9`, which runs no handler in it: the watchdog notices its
 *   parent is gone (it is re-parented, `process.ppid` changes) within a quarter second.
 *
 * SIGTERM first, SIGKILL two seconds later; the watchdog exits with the server's code, so the
 * runtime sees a crash as a crash. The server inherits the watchdog's stdin and stdout, which
 * are the runtime's pipes: the messages do not pass through it. POSIX only (process groups).
 */

/** The watchdog, run with `node -e`; its arguments are the command and the command's arguments. */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [command, ...args] = process.argv.slice(1);
const parent = process.ppid;
const child = spawn(command, args, { stdio: 'inherit', detached: true });
let ending = false;
const group = (signal) => { try { process.kill(-child.pid, signal); } catch {} };
const end = () => {
  if (ending) return;
  ending = true;
  group('SIGTERM');
  setTimeout(() => { group('SIGKILL'); process.exit(1); }, 2000).unref();
};
child.on('error', (error) => { process.stderr.write('cannot start ' + command + ': ' + error.message + '\\n'); process.exit(127); });
child.on('exit', (code, signal) => { group('SIGKILL'); process.exit(code ?? (signal ? 1 : 0)); });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, end);
setInterval(() => { if (process.ppid !== parent) end(); }, 250);
`;

/** The command and arguments that start `command args` under the watchdog. */
export function supervised(command: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', WATCHDOG, '--', command, ...args] };
}
