/**
 * Runs the first of a round's calls alone until its answer has begun, then the
 * rest at once. They share a prompt prefix (the rules, the decision, the
 * board record), and on the API a prompt-cache entry is readable only once
 * the response that writes it has begun: sent together, every call writes the
 * record's new chapter at 1.25× the input price and none reads it; sent after
 * the lead's answer begins, they read what it wrote at 0.1×. The price is one
 * time to first token per round. A lead that fails, or that a replay finds
 * already done (so it never begins), releases the rest as well.
 *
 * `run` gets `begun` for the lead only; it is to be called when the answer's
 * first part arrives (a model call's first streamed delta).
 */
export async function leadFirst<T, R>(items: readonly T[], run: (item: T, begun?: () => void) => Promise<R>): Promise<R[]> {
  const [lead, ...rest] = items;
  if (lead === undefined || rest.length === 0) return Promise.all(items.map((item) => run(item)));
  let release = () => {};
  const begun = new Promise<void>((resolve) => (release = resolve));
  const first = run(lead, release);
  const settled = () => {};
  await Promise.race([begun, first.then(settled, settled)]);
  return Promise.all([first, ...rest.map((item) => run(item))]);
}
