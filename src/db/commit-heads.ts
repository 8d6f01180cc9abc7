/**
 * What this process believes a session's log head is: its last seq and the
 * case memory folded up to it. A commit folds its events onto the head in
 * JavaScript and sends the result with `expect = lastSeq`; Postgres applies it
 * only if the head is still that (see bo1_commit_many), so a wrong belief costs a
 * retry, never a wrong memory.
 *
 * The commits of one session in this process go one batch at a time
 * (commit-queue.ts): a batch is a single statement, so a round's parallel
 * steps wait for one round trip, which the gapless log imposes anyway (the
 * row lock orders them in Postgres). Letting them race instead, each folding
 * onto a head moved by one still in flight, was tried: the pool's connections
 * reorder them, and every reordering is a refusal and a retry.
 */
export interface Head {
  lastSeq: number;
  caseMemory: unknown;
}

/**
 * Many times the sessions one worker runs at once (an ended session's head is dropped), and a bound on the memory
 * the heads hold (a case memory is a few KB); the oldest belief goes first.
 */
const MAX_HEADS = 2_000;

export class CommitHeads {
  private readonly heads = new Map<string, Head>();

  get(sessionId: string): Head | undefined {
    return this.heads.get(sessionId);
  }

  set(sessionId: string, head: Head): void {
    this.heads.delete(sessionId);
    this.heads.set(sessionId, head);
    if (this.heads.size > MAX_HEADS) this.heads.delete(this.heads.keys().next().value!);
  }

  drop(sessionId: string): void {
    this.heads.delete(sessionId);
  }

  get size(): number {
    return this.heads.size;
  }
}
