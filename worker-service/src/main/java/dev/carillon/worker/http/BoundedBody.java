package dev.carillon.worker.http;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read up to a limit: the first {@code maxBytes} bytes are kept, and the rest of
 * the response is not read (the subscription is cancelled), so that an endpoint cannot make the
 * worker hold a body of any size.
 */
final class BoundedBody implements BodySubscriber<BoundedBody.Body> {
  /**
   * A body as kept.
   *
   * @param bytes at most the limit
   * @param cut whether the response was longer
   */
  record Body(byte[] bytes, boolean cut) {}

  private final int maxBytes;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private final CompletableFuture<Body> done = new CompletableFuture<>();
  private Flow.Subscription subscription;

  BoundedBody(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  @Override
  public CompletionStage<Body> getBody() {
    return done;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    for (ByteBuffer b : items) {
      int room = maxBytes - kept.size();
      int take = Math.min(room, b.remaining());
      byte[] chunk = new byte[take];
      b.get(chunk);
      kept.write(chunk, 0, take);
      if (b.hasRemaining()) {
        subscription.cancel();
        done.complete(new Body(kept.toByteArray(), true));
        return;
      }
    }
    subscription.request(1);
  }

  @Override
  public void onError(Throwable t) {
    done.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    done.complete(new Body(kept.toByteArray(), false));
  }
}
