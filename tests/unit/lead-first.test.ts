import { describe, expect, it } from 'vitest';
import { leadFirst } from '../../src/app/engine/lead-first';

/** A call whose answer begins when `begin` is called and ends when `end` is; records when each was sent. */
function calls() {
  const sent: string[] = [];
  const pending = new Map<string, { begin: () => void; end: (ok: boolean) => void }>();
  const run = (name: string, begun?: () => void) =>
    new Promise<string>((resolve, reject) => {
      sent.push(name);
      pending.set(name, { begin: () => begun?.(), end: (ok) => (ok ? resolve(name) : reject(new Error(`${name} failed`))) });
    });
  return { sent, run, at: (name: string) => pending.get(name)! };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('leadFirst', () => {
  it('sends the rest only once the lead has begun, and returns every answer in order', async () => {
    const c = calls();
    const all = leadFirst(['a', 'b', 'c'], c.run);
    await tick();
    expect(c.sent).toEqual(['a']);
    c.at('a').begin();
    await tick();
    expect(c.sent).toEqual(['a', 'b', 'c']);
    for (const n of ['c', 'a', 'b']) c.at(n).end(true);
    await expect(all).resolves.toEqual(['a', 'b', 'c']);
  });

  it('releases the rest when the lead ends without beginning (a replayed step) and fails as Promise.all would when it fails', async () => {
    const done = leadFirst(['a', 'b'], (n, begun) => (begun ? Promise.resolve(n) : Promise.resolve(`${n}!`)));
    await expect(done).resolves.toEqual(['a', 'b!']);
    const c = calls();
    const failed = expect(leadFirst(['a', 'b'], c.run)).rejects.toThrow('a failed');
    await tick();
    c.at('a').end(false);
    await tick();
    expect(c.sent).toEqual(['a', 'b']);
    c.at('b').end(true);
    await failed;
  });

  it('sends a lone call at once, with nothing to wait for', async () => {
    const seen: (boolean | undefined)[] = [];
    await expect(leadFirst(['a'], async (n, begun) => (seen.push(begun !== undefined), n))).resolves.toEqual(['a']);
    expect(seen).toEqual([false]);
  });
});
