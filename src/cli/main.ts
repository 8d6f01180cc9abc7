import { ApiError, ConnectionError } from './api';
import { parseArgs, UsageError } from './args';
import { runCommand } from './commands';
import { HELP } from './help';

/** The `bo1` process: parse, run, map the outcome to an exit code (0 completed, 1 failed/cancelled/refused, 2 usage, 3 unreachable). */
async function main(argv: string[]): Promise<number> {
  const say = (text: string) => void process.stderr.write(`bo1: ${text}\n`);
  let session: string | null = null;
  process.on('SIGINT', () => {
    process.stderr.write('\n');
    if (session) say(`interrupted. The session goes on on the server: "bo1 attach ${session}" to return, "bo1 cancel ${session}" to stop it.`);
    process.exit(130);
  });
  try {
    const { command, global } = parseArgs(argv, process.env);
    if (command.kind === 'help') {
      process.stdout.write(`${HELP[command.topic] ?? HELP.main}\n`);
      return 0;
    }
    return await runCommand(command, global, {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      onSession: (id) => (session = id),
    });
  } catch (err) {
    if (err instanceof UsageError) {
      say(err.message);
      process.stderr.write(`Run "bo1 ${err.command ? `${err.command} ` : ''}--help" for usage.\n`);
      return 2;
    }
    if (err instanceof ConnectionError) {
      say(err.message);
      return 3;
    }
    if (err instanceof ApiError) {
      say(err.message);
      return 1;
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
      say((err as Error).message);
      return 2;
    }
    throw err;
  }
}

// `bo1 … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await main(process.argv.slice(2));
// Exit explicitly (keep-alive sockets and stdin would otherwise hold the process), once output is flushed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
