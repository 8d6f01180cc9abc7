import type { ApiClient, Envelope } from './api';
import type { BackoffPolicy } from './backoff';
import { CheckpointDesk } from './checkpoints';
import { follow } from './follow';
import type { Asker } from './input';
import { Renderer } from './render';
import type { Style } from './style';

export interface WatchOptions {
  client: ApiClient;
  sessionId: string;
  /** Render after this seq; earlier events are fetched as context only. */
  after: number;
  style: Style;
  out(text: string): void;
  err(text: string): void;
  /** null: answer every checkpoint with `continue`. */
  input: Asker | null;
  /** Every event's seq and type to stderr, for debugging. */
  trace: boolean;
  backoff?: BackoffPolicy;
}

export interface WatchResult {
  status: string;
  costUsd: number | null;
  calls: number | null;
}

/**
 * Renders a session from its stream to the end and answers its checkpoints.
 * Events are queued as they arrive and handled in order, so while a prompt
 * waits for an answer nothing else prints, yet a resolution arriving
 * meanwhile (another client, expiry) is seen at once and withdraws the prompt.
 */
export async function watch(o: WatchOptions): Promise<WatchResult> {
  const { client, sessionId, style } = o;
  const line = (text: string) => o.out(`${text}\n`);
  const renderer = new Renderer(o.out, style, o.after);
  const desk = new CheckpointDesk({
    client,
    sessionId,
    input: o.input,
    say: line,
    warn: (text) => o.err(`bo1: ${text}\n`),
    style,
    progress: (id) => renderer.progress(id),
  });
  const queue: Envelope[] = [];

  // attach --after: the earlier events give names, totals and any checkpoint still pending.
  let pending: Envelope | null = null;
  for (let after = 0; after < o.after; ) {
    const page = await client.events(sessionId, after, Math.min(1000, o.after - after));
    for (const e of page.items) {
      renderer.add(e);
      desk.observe(e);
      if (e.type === 'checkpoint.requested') pending = e;
    }
    if (!page.has_more || page.items.length === 0) break;
    after = page.next_after;
  }
  renderer.flush();
  if (pending && !desk.isResolved(String(pending.data.checkpointId))) queue.push(pending);

  let wake: (() => void) | null = null;
  let finished = false;
  let failure: unknown = null;
  let status = 'ended';
  const following = follow({
    client,
    sessionId,
    after: o.after,
    ...(o.backoff && { backoff: o.backoff }),
    onEvent: (e) => {
      if (o.trace) o.err(`#${e.seq} ${e.type}\n`);
      desk.observe(e);
      queue.push(e);
      wake?.();
    },
    onReconnect: (why, ms) => o.err(style.dim(`(stream interrupted: ${why}; reconnecting in ${ms} ms)\n`)),
  }).then(
    (r) => void (status = r.status),
    (err: unknown) => void (failure = err),
  );
  void following.finally(() => {
    finished = true;
    wake?.();
  });

  let usage: Record<string, unknown> | null = null;
  for (;;) {
    const e = queue.shift();
    if (!e) {
      renderer.flush();
      if (finished) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      continue;
    }
    renderer.add(e);
    if (e.type === 'usage.updated') usage = e.data;
    if (e.type === 'session.completed') usage = e.data.usage as Record<string, unknown>;
    if (e.type === 'checkpoint.requested') {
      renderer.flush();
      await desk.handle(e);
    } else if (e.type === 'checkpoint.resolved') {
      renderer.flush();
      line(desk.resolvedLine(e));
    }
  }
  if (failure) throw failure;
  // Attached after the end, no usage event was seen: the snapshot has the session's spend.
  usage ??= ((await client.session(sessionId)).usage as Record<string, unknown> | undefined) ?? null;
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return { status, costUsd: num(usage?.costUsd), calls: num(usage?.calls) };
}

/** `Session completed · cost $0.4312 · 141 model calls`. */
export function summaryLine(r: WatchResult, style: Style): string {
  const parts = [`Session ${r.status}`];
  if (r.costUsd !== null) parts.push(`cost $${r.costUsd.toFixed(4)}`);
  if (r.calls !== null) parts.push(`${r.calls} model calls`);
  const text = parts.join(' · ');
  return r.status === 'completed' ? style.bold(text) : style.red(style.bold(text));
}
