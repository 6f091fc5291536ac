package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * One page of a list, newest first.
 *
 * @param items this page's items
 * @param nextCursor pass it as {@code cursor} to get the next page; null on the last page. Opaque:
 *     it encodes the position after the last item, so pages neither skip nor repeat rows when new
 *     ones arrive meanwhile
 */
@Stability.Evolving
public record Page<T>(List<T> items, String nextCursor) {
  public Page {
    items = items == null ? List.of() : List.copyOf(items);
  }
}
