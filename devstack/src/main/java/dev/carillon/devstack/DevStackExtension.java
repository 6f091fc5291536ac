package dev.carillon.devstack;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that injects the JVM-wide {@link DevStack#shared() shared} stack into test
 * constructors, lifecycle methods and test methods that declare a {@link DevStack} parameter.
 *
 * <pre>{@code
 * @ExtendWith(DevStackExtension.class)
 * class RepositoryTest {
 *   @Test
 *   void stores_an_instance(DevStack stack) {
 *     String url = stack.createDatabase("repository");
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>The stack starts on first use (a few seconds) and is stopped when the JVM exits, so every test
 * class in a module shares one set of servers.
 */
public final class DevStackExtension implements ParameterResolver {
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == DevStack.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return DevStack.shared();
  }
}
