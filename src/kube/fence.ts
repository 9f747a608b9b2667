// The write fence, as an undici dispatcher interceptor (undici's public `Dispatcher.compose` API): the
// one place that decides whether a mutating request (POST/PUT/PATCH/DELETE) may go out. It checks twice:
//
// - before send: when the request is handed to the dispatcher (`dispatch`), i.e. to the network;
// - on connection: when undici has a connection for it and is about to write its first byte
//   (`onRequestStart`, which undici calls synchronously right before it writes the request line, on a
//   kept-alive socket as on a new one — after a new connection's TLS handshake). A refusal there aborts
//   the request through its controller: nothing is written.
//
// So a process frozen (SIGSTOP, a long GC pause) anywhere between the two checks, or while a new
// connection's handshake was under way, sends nothing on waking after another replica took over. What
// is left is the time between the second check and the kernel taking the bytes (one synchronous
// stretch of code), and the time the bytes spend in the network: that is what the API server's fencing
// policy covers (docs/leader-election.md).
//
// The fence itself (`check`) throws to refuse; the interceptor rethrows that error unchanged (undici's
// fetch reports it as the `cause` of its "fetch failed" TypeError; the transport unwraps it).
import type { Dispatcher } from 'undici';

/**
 * Where a write was refused for not coming from the leader: `client` (the check before the request is
 * handed to the network), `socket` (the re-check when it has its connection, right before the first
 * byte), `admission` (the API server's fencing policy refused it: it reached the server after this
 * replica's term had ended).
 */
export type FenceLayer = 'client' | 'socket' | 'admission';
export const FENCE_LAYERS: readonly FenceLayer[] = ['client', 'socket', 'admission'];

export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * An interceptor for `dispatcher.compose(...)` that runs `check` before a write is dispatched and again
 * when it is about to be written to its connection. `refused(layer)` is told of each refusal (metrics).
 * Reads (GET, HEAD, ...) pass untouched.
 */
export function fenceInterceptor(
  check: () => void,
  refused: (layer: FenceLayer) => void = () => {},
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    if (!WRITE_METHODS.has(String(opts.method).toUpperCase())) return dispatch(opts, handler);
    try {
      check();
    } catch (err) {
      refused('client');
      throw err;
    }
    return dispatch(opts, new FenceAtConnection(handler, check, refused));
  };
}

/** Passes every callback on, and runs the fence in `onRequestStart` before the inner handler's. */
class FenceAtConnection implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly check: () => void,
    private readonly refused: (layer: FenceLayer) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    try {
      this.check();
    } catch (err) {
      this.refused('socket');
      controller.abort(err as Error);
      return;
    }
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.inner.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.inner.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.inner.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.inner.onResponseError?.(...args);
  }

  onResponseStarted(): void {
    this.inner.onResponseStarted?.();
  }

  onRequestSent(): void {
    this.inner.onRequestSent?.();
  }
}
