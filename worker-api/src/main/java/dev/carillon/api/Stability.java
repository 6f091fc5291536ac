package dev.carillon.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Labels that say how much a public type of this API may change, in the manner of Kafka's {@code
 * InterfaceStability}. Types without a label are not part of the API.
 */
@Stability.Stable
public final class Stability {
  private Stability() {}

  /**
   * Compatibility is kept within a major release: agents compiled against an earlier minor release
   * keep compiling and running. Changes happen only at a major release.
   */
  @Documented
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.PACKAGE})
  public @interface Stable {}

  /**
   * May change in a minor release, with a note in the release notes. For interfaces the worker
   * implements (such as {@link AgentContext}) the expected change is new methods, which breaks only
   * code that implements the interface itself; test code should build contexts with {@code
   * dev.carillon.testkit.TestAgentContext} ({@code carillon-testkit}) rather than implement them by
   * hand.
   */
  @Documented
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.PACKAGE})
  public @interface Evolving {}
}
