/** A promise with its resolve and reject at hand (Node 20 has no Promise.withResolvers). */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

/** A deferred whose rejection nobody awaiting is not an unhandled rejection (it is expected). */
export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}
