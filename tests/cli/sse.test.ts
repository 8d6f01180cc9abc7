import { describe, expect, it } from 'vitest';
import { SseParser, type SseMessage } from '../../src/cli/sse';

const feed = (chunks: string[]) => {
  const parser = new SseParser();
  const out: SseMessage[] = [];
  for (const c of chunks) out.push(...parser.push(c));
  return { out, parser };
};

const stream = [
  'retry: 2000\n\n',
  ': heartbeat\n\n',
  'id: 1\nevent: session.created\ndata: {"seq":1,"type":"session.created"}\n\n',
  'id: 2\nevent: problem.stated\ndata: {"seq":2,\ndata: "type":"problem.stated"}\n\n',
  ': heartbeat\n',
  'event: stream.closing\ndata: {"reason":"server_shutdown","reconnect":true}\n\n',
].join('');

const expected: SseMessage[] = [
  { event: 'session.created', data: '{"seq":1,"type":"session.created"}', id: '1' },
  { event: 'problem.stated', data: '{"seq":2,\n"type":"problem.stated"}', id: '2' },
  { event: 'stream.closing', data: '{"reason":"server_shutdown","reconnect":true}' },
];

describe('SSE parser (eventsource-parser behind the client\'s interface)', () => {
  it('parses events, joins multi-line data, skips comments and data-less blocks', () => {
    const { out, parser } = feed([stream]);
    expect(out).toEqual(expected);
    expect(parser.comments).toBe(2);
  });

  it('gives the same events whatever the chunk boundaries', () => {
    expect(feed([...stream]).out).toEqual(expected);
    for (const size of [2, 3, 7, 16, 33]) {
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
      expect(feed(chunks).out, `chunks of ${size}`).toEqual(expected);
    }
  });

  it('accepts CRLF and CR line endings, also a CRLF split across chunks', () => {
    const crlf = stream.replace(/\n/g, '\r\n');
    expect(feed([crlf]).out).toEqual(expected);
    expect(feed([...crlf]).out).toEqual(expected);
    // A CR that ends the input so far may be half a CRLF: the last event is complete once anything follows it.
    expect(feed([stream.replace(/\n/g, '\r')]).out).toEqual(expected.slice(0, 2));
    expect(feed([stream.replace(/\n/g, '\r'), ': heartbeat\r']).out).toEqual(expected);
    expect(feed(['data: a\r', '\n', '\r', '\ndata: b\r\n\r\n']).out).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
  });

  it('follows the field rules: one optional space, a bare field name, unknown fields ignored', () => {
    const { out } = feed(['data:no-space\ndata:  two spaces\ndata\nfoo: bar\nid: 7\nretry: soon\n\n']);
    expect(out).toEqual([{ event: 'message', data: 'no-space\n two spaces\n', id: '7' }]);
  });

  it('keeps a partial event until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('id: 3\nevent: x\ndata: {"seq":3}')).toEqual([]);
    expect(parser.push('\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'x', data: '{"seq":3}', id: '3' }]);
  });
});
