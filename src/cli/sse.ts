/** One dispatched Server-Sent Event. `id` is this event's own `id:` field, if it had one. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

/**
 * Incremental SSE parser (the WHATWG event-stream rules): feed it decoded text
 * in whatever chunks the network delivers; it returns the events completed by
 * each chunk. Lines end in CRLF, LF or CR (a CR at the end of a chunk may be
 * the first half of a CRLF); `data:` lines join with "\n"; comment lines
 * (`: heartbeat`) are counted, not dispatched; a block without data only
 * updates `retry`.
 */
export class SseParser {
  private buffer = '';
  private pendingCr = false;
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;
  /** Comment lines seen so far (heartbeats). */
  comments = 0;

  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be half a CRLF split across chunks: treat it as the line end and drop a following LF.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.comments += 1;
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    const hasData = this.data.length > 0;
    const message: SseMessage = { event: this.event || 'message', data: this.data.join('\n') };
    if (this.id !== undefined) message.id = this.id;
    if (this.retry !== undefined) message.retry = this.retry;
    this.data = [];
    this.event = '';
    this.id = undefined;
    this.retry = undefined;
    return hasData ? message : null;
  }
}
