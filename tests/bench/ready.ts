/** Waits until the API answers ready with a worker on the queue (/readyz no longer waits for one, so a bench asks for it). */
export async function untilReady(url: string, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok && ((await res.json()) as { workers: number | null }).workers) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
}
