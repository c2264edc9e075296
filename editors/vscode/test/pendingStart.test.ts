import assert from "node:assert/strict";
import { test } from "node:test";
import { PendingStart } from "../src/pendingStart";

/** A promise with its resolve and reject at hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A clock the test moves: each delay resolves when the test calls `expire()`. */
function manualDelay(): { delay: (ms: number) => Promise<void>; asked: number[]; expire: () => void } {
  const waiting: (() => void)[] = [];
  const asked: number[] = [];
  return {
    delay: (ms) => {
      asked.push(ms);
      return new Promise((resolve) => waiting.push(resolve));
    },
    asked,
    expire: () => {
      for (const resolve of waiting.splice(0)) {
        resolve();
      }
    },
  };
}

/** Lets every pending promise callback run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled, and with what, without waiting for it. */
function watch<T>(promise: Promise<T>): { settled: boolean; value?: T } {
  const state: { settled: boolean; value?: T } = { settled: false };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

test("with no start in progress a command goes ahead at once", async () => {
  const clock = manualDelay();
  assert.equal(await new PendingStart(clock.delay).settled(30_000), true);
  assert.deepEqual(clock.asked, [], "no timer for nothing to wait for");
});

test("a command during the start waits for it to finish", async () => {
  const clock = manualDelay();
  const pending = new PendingStart(clock.delay);
  const server = deferred();
  void pending.run(() => server.promise);
  const waited = watch(pending.settled(30_000));
  await flush();
  assert.equal(waited.settled, false, "answered before the server started");
  server.resolve();
  await flush();
  assert.deepEqual(waited, { settled: true, value: true });
  assert.deepEqual(clock.asked, [30_000]);
});

test("a start that fails ends the wait too (the caller then finds no running server)", async () => {
  const pending = new PendingStart(manualDelay().delay);
  const server = deferred();
  const started = pending.run(() => server.promise);
  const waited = watch(pending.settled(30_000));
  server.reject(new Error("no Python"));
  await assert.rejects(started, /no Python/);
  await flush();
  assert.deepEqual(waited, { settled: true, value: true });
});

test("a start that takes longer than the bound gives the command an answer", async () => {
  const clock = manualDelay();
  const pending = new PendingStart(clock.delay);
  void pending.run(() => deferred().promise);
  const waited = watch(pending.settled(30_000));
  await flush();
  assert.equal(waited.settled, false);
  clock.expire();
  await flush();
  assert.deepEqual(waited, { settled: true, value: false });
});

test("a second start joins the one in progress", async () => {
  const pending = new PendingStart(manualDelay().delay);
  const server = deferred();
  let starts = 0;
  const start = (): Promise<void> => {
    starts += 1;
    return server.promise;
  };
  const first = pending.run(start);
  const second = pending.run(start);
  assert.equal(first, second);
  assert.equal(starts, 1);
  server.resolve();
  await first;
  await pending.run(start);
  assert.equal(starts, 2, "a start after the first one finished runs anew");
});

test("a restart during the wait: the command waits for the new start, not the stopped one", async () => {
  const pending = new PendingStart(manualDelay().delay);
  const stopped = deferred();
  const restarted = deferred();
  void pending.run(() => stopped.promise);
  const waited = watch(pending.settled(30_000));
  pending.forget();
  void pending.run(() => restarted.promise);
  stopped.resolve();
  await flush();
  assert.equal(waited.settled, false, "went ahead while the new server was still starting");
  restarted.resolve();
  await flush();
  assert.deepEqual(waited, { settled: true, value: true });
});
