package dev.carillon.control.web;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;

/**
 * Reads a request's body without holding a thread while it arrives: keeps it up to the size limit,
 * and past the limit (or for a request already refused) reads on and drops the rest, up to a
 * ceiling, so that the refusal reaches the client.
 *
 * <p>Why read a body that will be refused: a server that answers before reading the body and then
 * closes the connection leaves the body's remaining bytes unread in its socket; closing such a
 * socket makes the kernel send a reset, and a client still writing its body sees "connection reset"
 * instead of the answer (seen once in {@code BadInputTest} for a 2 MiB body). Reading the rest
 * first lets the answer arrive and the connection carry the next request. A body longer than the
 * ceiling is not read to its end: its connection is closed after the answer, and such a client may
 * see the reset. Jetty's own reader ({@code Content.Source.asByteArrayAsync}) fails the request's
 * content at the limit, after which nothing more can be read, hence this class.
 */
final class BodyReader implements Runnable {
  /**
   * What was read.
   *
   * @param body the body, or {@code null} when it was longer than the limit or refused already
   * @param whole whether the body was read to its end (if not, the connection cannot carry another
   *     request)
   */
  record Result(byte[] body, boolean whole) {}

  private final Content.Source source;
  private final long limit;
  private final long ceiling;
  private final CompletableFuture<Result> done = new CompletableFuture<>();
  private ByteArrayOutputStream kept;
  private long read;

  private BodyReader(Content.Source source, long limit, long ceiling, boolean keep) {
    this.source = source;
    this.limit = limit;
    this.ceiling = ceiling;
    long declared = source.getLength();
    this.kept =
        keep
            ? new ByteArrayOutputStream(declared > 0 ? (int) Math.min(declared, limit) : 1024)
            : null;
  }

  /**
   * Reads a body and keeps it when it is at most {@code limit} bytes long.
   *
   * @param ceiling the most bytes read of a body longer than {@code limit}
   * @return completes with the result, or exceptionally with the failure of the content (the client
   *     went away, the connection failed)
   */
  static CompletableFuture<Result> read(Content.Source source, int limit, long ceiling) {
    BodyReader reader = new BodyReader(source, limit, ceiling, true);
    reader.run();
    return reader.done;
  }

  /**
   * Reads a refused request's body and drops it.
   *
   * @param ceiling the most bytes read
   * @return as {@link #read}, the result's body {@code null}
   */
  static CompletableFuture<Result> drain(Content.Source source, long ceiling) {
    BodyReader reader = new BodyReader(source, -1, ceiling, false);
    reader.run();
    return reader.done;
  }

  @Override
  public void run() {
    while (!done.isDone()) {
      Content.Chunk chunk = source.read();
      if (chunk == null) {
        source.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        done.completeExceptionally(chunk.getFailure());
        return;
      }
      boolean last = chunk.isLast();
      try {
        take(chunk.getByteBuffer());
      } finally {
        chunk.release();
      }
      if (last) {
        done.complete(new Result(kept == null ? null : kept.toByteArray(), true));
      } else if (kept == null && read > ceiling) {
        done.complete(new Result(null, false));
      }
    }
  }

  private void take(ByteBuffer buffer) {
    int n = buffer.remaining();
    read += n;
    if (kept == null) {
      return;
    }
    if (read > limit) {
      kept = null; // too long: dropped from here on
      return;
    }
    if (buffer.hasArray()) {
      kept.write(buffer.array(), buffer.arrayOffset() + buffer.position(), n);
    } else {
      byte[] copy = new byte[n];
      buffer.get(copy);
      kept.write(copy, 0, n);
    }
  }
}
