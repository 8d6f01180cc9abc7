import { ApiError, type ApiClient, type Envelope } from './api';
import { EndOfInput, runDialog } from './checkpoint-dialog';
import { asCheckpoint, formatResolved, type CheckpointRequest, type Resolution } from './checkpoint-view';
import { PromptAborted, type Asker } from './input';
import type { Style } from './style';

const TERMINAL = new Set(['session.completed', 'session.failed', 'session.cancelled']);

export interface DeskOptions {
  client: ApiClient;
  sessionId: string;
  /** Where answers come from; null answers every checkpoint with `continue` (--auto). */
  input: Asker | null;
  say(text: string): void;
  warn(text: string): void;
  style: Style;
  progress(subProblemId: string): string;
}

/**
 * Answers a session's checkpoints, one prompt at a time and never one twice:
 * a checkpoint already resolved (in the events received, or in the log
 * right after it, as on a replay) only gets a line, and a prompt whose
 * checkpoint is resolved elsewhere while it waits (another client, expiry) is
 * withdrawn.
 */
export class CheckpointDesk {
  private readonly resolved = new Set<string>();
  private readonly kinds = new Map<string, string>();
  private active: { id: string; abort: AbortController } | null = null;
  private inputEnded = false;
  /** The session ended (completed, failed, cancelled): nothing is pending any more, so nothing is asked. */
  private ended = false;

  constructor(private readonly o: DeskOptions) {}

  /** Sees every event the moment it arrives, ahead of the rendering queue. */
  observe(e: Envelope): void {
    if (TERMINAL.has(e.type)) {
      this.ended = true;
      this.active?.abort.abort();
      return;
    }
    if (e.type === 'checkpoint.requested') this.kinds.set(String(e.data.checkpointId), String(e.data.kind));
    if (e.type !== 'checkpoint.resolved') return;
    const id = String(e.data.checkpointId);
    this.resolved.add(id);
    if (this.active?.id === id) this.active.abort.abort();
  }

  isResolved(id: string): boolean {
    return this.resolved.has(id);
  }

  /** The line for a `checkpoint.resolved` event, in its place in the output (a paragraph of its own). */
  resolvedLine(e: Envelope): string {
    const id = String(e.data.checkpointId);
    return `${this.o.style.dim(formatResolved(e.data, String(e.data.kind ?? this.kinds.get(id) ?? 'checkpoint')))}\n`;
  }

  async handle(e: Envelope): Promise<void> {
    const cp = asCheckpoint(e.data);
    if (this.ended || this.resolved.has(cp.checkpointId) || (await this.settledInLog(e.seq, cp.checkpointId))) {
      this.o.say(this.o.style.dim(`\n? ${cp.prompt}`));
      if (this.ended && !this.resolved.has(cp.checkpointId)) this.o.say(this.o.style.dim('(the session ended before this was answered)'));
      return;
    }
    const abort = new AbortController();
    this.active = { id: cp.checkpointId, abort };
    try {
      for (let attempt = 0; ; attempt += 1) {
        const answer = await this.answer(cp, abort.signal);
        if (answer === null) return;
        const sent = await this.send(cp, answer);
        // A refused answer (422/400) is asked again; a refused `continue` cannot be improved on.
        if (sent || answer.action === 'continue' || attempt >= 2 || this.inputEnded) return;
      }
    } finally {
      this.active = null;
    }
  }

  private async answer(cp: CheckpointRequest, signal: AbortSignal): Promise<Resolution | null> {
    const { input, style, say } = this.o;
    if (!input || this.inputEnded) {
      say(`\n${style.bold(`? ${cp.prompt}`)}`);
      say(style.dim(input ? '(no more input: continue)' : '(auto: continue)'));
      return { action: 'continue' };
    }
    try {
      return await runDialog(cp, {
        ask: (prompt) => input.ask(prompt, signal),
        say,
        style,
        progress: this.o.progress,
      });
    } catch (err) {
      if (err instanceof PromptAborted) {
        say(style.dim(this.ended ? '(the session ended: nothing to answer)' : '(this checkpoint was resolved elsewhere)'));
        return null;
      }
      if (err instanceof EndOfInput) {
        this.inputEnded = true;
        say(style.dim('(input ended: continuing at this and every later checkpoint)'));
        return { action: 'continue' };
      }
      throw err;
    }
  }

  /** Posts the answer; true when the server took it. */
  private async send(cp: CheckpointRequest, answer: Resolution): Promise<boolean> {
    if (this.resolved.has(cp.checkpointId)) return true;
    try {
      // No echo here: the checkpoint.resolved event that follows on the stream says what was decided.
      await this.o.client.resolveCheckpoint(this.o.sessionId, cp.checkpointId, answer);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // 409: resolved by someone else or expired; its checkpoint.resolved event follows on the stream.
      this.o.warn(err.status === 409 ? `checkpoint no longer pending: ${err.message}` : `answer refused: ${err.message}`);
      return err.status === 409;
    }
  }

  /**
   * On a replay the resolution follows the request closely: one page of the
   * log tells — as does the session's end (cancelled while it waited), after
   * which there is nothing to answer either.
   */
  private async settledInLog(seq: number, checkpointId: string): Promise<boolean> {
    const page = await this.o.client.events(this.o.sessionId, seq, 100);
    const hit = page.items.find((x) => x.type === 'checkpoint.resolved' && x.data.checkpointId === checkpointId);
    if (hit) this.resolved.add(checkpointId);
    if (page.items.some((x) => TERMINAL.has(x.type))) this.ended = true;
    return Boolean(hit) || this.ended;
  }
}
