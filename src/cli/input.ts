import { createInterface, type Interface } from 'node:readline';

/** Reads answers a line at a time. `null` means the input has ended (EOF). */
export interface Asker {
  ask(prompt: string, signal?: AbortSignal): Promise<string | null>;
}

/** Thrown into a waiting prompt whose checkpoint was resolved elsewhere. */
export class PromptAborted extends Error {}

/**
 * Answers from stdin, for a terminal and for a piped script alike: lines are
 * queued as they arrive, so a script's answers are consumed one per question.
 * On a pipe nothing echoes what was typed, so each consumed answer is written
 * after its prompt and the output reads as a conversation. Opened lazily: a
 * session without prompts never touches stdin.
 */
export class LineInput implements Asker {
  private rl: Interface | null = null;
  private readonly lines: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(
    private readonly input: NodeJS.ReadableStream & { isTTY?: boolean },
    private readonly output: NodeJS.WritableStream,
  ) {}

  private open(): Interface {
    if (this.rl) return this.rl;
    const terminal = Boolean(this.input.isTTY);
    const rl = createInterface({ input: this.input, ...(terminal && { output: this.output }), terminal });
    rl.on('line', (line) => {
      if (this.waiter) this.waiter(line);
      else this.lines.push(line);
    });
    rl.on('close', () => {
      this.ended = true;
      this.waiter?.(null);
    });
    // readline takes over Ctrl-C on a terminal; hand it back to the process's handler.
    rl.on('SIGINT', () => process.emit('SIGINT', 'SIGINT'));
    this.rl = rl;
    return rl;
  }

  async ask(prompt: string, signal?: AbortSignal): Promise<string | null> {
    const rl = this.open();
    const tty = Boolean(this.input.isTTY);
    const cut = prompt.lastIndexOf('\n') + 1;
    this.output.write(prompt.slice(0, cut));
    const last = prompt.slice(cut);
    // On a terminal readline owns the prompt line, so line editing redraws it correctly.
    if (tty) {
      rl.setPrompt(last);
      rl.prompt();
    } else this.output.write(last);
    const line = this.lines.length > 0 ? this.lines.shift()! : this.ended ? null : await this.next(signal);
    if (!tty) this.output.write(line === null ? '\n' : `${line}\n`);
    return line;
  }

  private next(signal?: AbortSignal): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiter = null;
        this.output.write('\n');
        reject(new PromptAborted());
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = (line) => {
        this.waiter = null;
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
    });
  }

  close(): void {
    this.rl?.close();
  }
}
