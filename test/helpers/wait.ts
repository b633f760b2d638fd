/**
 * Waits until `check` holds (it may be async), polling every `everyMs`; fails with `what` after
 * `timeoutMs`. For conditions that no event announces (a file appearing, a server cleaning up).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 10_000, everyMs = 10 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
