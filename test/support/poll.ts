// A bounded poll, for what announces nothing a test can await (a Prometheus server's scrape, a
// relay's /readyz across a fault): asked every `everyMs` until it holds; past `withinMs` it throws
// with `what` and what the last ask saw. One home: issue 37 item 3.

export async function pollUntil<T>(what: string, check: () => Promise<T | undefined>, saw: () => string, withinMs = 30_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms. Last seen:\n${saw()}`);
    await new Promise((r) => setTimeout(r, everyMs)); // poll interval of a bounded wait
  }
}
