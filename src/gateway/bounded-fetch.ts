import { GatewayFault } from './errors.js';

/**
 * fetch for an HTTP upstream whose answers are held to `max` bytes: a JSON answer in all, an SSE
 * stream an event at a time (bytes since the last blank line). The SDK reads a JSON answer whole
 * (response.json()) and an event whole before it parses either: 100 MB from an upstream was
 * 100 MB in memory and a second of JSON.parse, while every namespace waited. Past the cap the
 * body fails, then `onOverflow` runs: a call whose answer was in an event has none coming. An
 * SSE stream is handed on in slices, a turn of the event loop apart.
 */
/** Bytes of an SSE stream handed on at a time. */
const EVENT_SLICE = 1024;

export function boundedFetch(
  max: number,
  onOverflow: () => void,
  inner: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.body === null || [101, 204, 205, 304].includes(response.status)) return response;
    const events = response.headers.get('content-type')?.includes('text/event-stream') === true;
    let since = 0;
    let previous = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        async transform(chunk, controller) {
          if (events) {
            for (let i = 0; i < chunk.length; i++) {
              const byte = chunk[i] as number;
              if (byte === 0x0a && previous === 0x0a) since = 0;
              else since++;
              // A blank line may end in \r\n: the \r does not count as text.
              if (byte !== 0x0d) previous = byte;
            }
          } else {
            since += chunk.length;
          }
          if (since > max) {
            controller.error(
              new GatewayFault(
                `the upstream answered more than ${max} bytes in one message: the gateway passes on no more`,
              ),
            );
            // After the error has reached the call reading this body.
            setImmediate(onOverflow);
            return;
          }
          if (!events) {
            controller.enqueue(chunk);
            return;
          }
          // The SDK parses each event as it comes, ~25 µs for a short one that is no message:
          // a slice at a time, with a turn of the event loop between, holds it a few ms.
          for (let at = 0; at < chunk.length; at += EVENT_SLICE) {
            controller.enqueue(chunk.subarray(at, at + EVENT_SLICE));
            await new Promise((resolve) => setImmediate(resolve));
          }
        },
      }),
    );
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
