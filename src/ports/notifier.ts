/** Wakes readers of a session's log after a commit. Carries no data of record: readers re-read Postgres. */
export interface Notifier {
  publish(sessionId: string, lastSeq: number): Promise<void>;
}
