import http from 'node:http';

export interface Sse {
  close(): void;
}

/** A minimal SSE reader on a raw socket, so the clients cost little next to the server. */
export function subscribe(url: string, onEvent: (type: string, data: string, at: number) => void, onEnd: () => void): Sse {
  let buf = '';
  const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const at = Date.now();
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let type = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) onEvent(type, data, at);
      }
    });
    res.on('end', onEnd);
  });
  req.on('error', onEnd);
  return { close: () => req.destroy() };
}
