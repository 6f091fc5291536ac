package dev.carillon.worker.plugin;

import dev.carillon.api.AgentTask;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link AgentTask}s this worker can run, one instance per {@link AgentTask#type()}.
 *
 * <p>Plugins are found by {@link ServiceLoader} on the class path and in the jars of an optional
 * plugin directory (loaded by one {@link URLClassLoader} whose parent is the class path). Loading
 * refuses, with a {@link PluginException} naming both classes, two plugins of the same type, and a
 * type that breaks {@link AgentTask#TYPE_PATTERN}: a worker that silently picked one of two would
 * run different code for the same task depending on class path order.
 *
 * <p>Thread-safe once built. {@link #close()} closes the plugin directory's class loader.
 */
public final class PluginRegistry implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PluginRegistry.class);

  private final Map<String, AgentTask> byType;
  private final URLClassLoader pluginLoader;

  private PluginRegistry(Map<String, AgentTask> byType, URLClassLoader pluginLoader) {
    this.byType = Collections.unmodifiableMap(new TreeMap<>(byType));
    this.pluginLoader = pluginLoader;
  }

  /**
   * Finds the plugins on {@code parent}'s class path and in the jars of {@code pluginDir}.
   *
   * @param parent the class loader of the class path, usually the application's
   * @param pluginDir a directory whose {@code *.jar} files hold more plugins, or empty
   * @throws PluginException when the directory is missing, two plugins share a type, a type is
   *     invalid or a plugin cannot be instantiated
   */
  public static PluginRegistry load(ClassLoader parent, Optional<Path> pluginDir) {
    return load(parent, pluginDir, Optional.empty());
  }

  /**
   * Like {@link #load(ClassLoader, Optional)}, loading from {@code pluginDir} only jars whose
   * SHA-256 is on {@code allowlist} ({@link PluginAllowlist}).
   *
   * @param allowlist a file of {@code sha256sum} lines, or empty to load every jar
   * @throws PluginException as above, and naming each jar (and its SHA-256) that is not on the
   *     allowlist: nothing is loaded then
   */
  public static PluginRegistry load(
      ClassLoader parent, Optional<Path> pluginDir, Optional<Path> allowlist) {
    Optional<PluginAllowlist> allowed = allowlist.map(PluginAllowlist::read);
    URLClassLoader pluginLoader =
        pluginDir.map(dir -> jarLoader(dir, parent, allowed)).orElse(null);
    try {
      ServiceLoader<AgentTask> loader =
          ServiceLoader.load(AgentTask.class, pluginLoader == null ? parent : pluginLoader);
      List<AgentTask> found = new ArrayList<>();
      Set<String> seenClasses = new java.util.HashSet<>();
      for (ServiceLoader.Provider<AgentTask> p :
          (Iterable<ServiceLoader.Provider<AgentTask>>) loader.stream()::iterator) {
        // The same class listed in two service files (e.g. a jar on the class path and in the
        // plugin directory) is one plugin, not a clash.
        if (seenClasses.add(p.type().getName())) {
          found.add(instantiate(p));
        }
      }
      PluginRegistry registry = new PluginRegistry(index(found), pluginLoader);
      log.info("Plugins: {}", registry.describe());
      return registry;
    } catch (ServiceConfigurationError e) {
      closeQuietly(pluginLoader);
      throw new PluginException("cannot load plugins: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(pluginLoader);
      throw e;
    }
  }

  /**
   * A registry of the given tasks, validated like loaded ones (for embedding and tests).
   *
   * @throws PluginException when two tasks share a type or a type is invalid
   */
  public static PluginRegistry of(List<? extends AgentTask> tasks) {
    return new PluginRegistry(index(tasks), null);
  }

  private static AgentTask instantiate(ServiceLoader.Provider<AgentTask> p) {
    try {
      return p.get();
    } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
      throw new PluginException(
          "plugin " + p.type().getName() + " from " + origin(p.type()) + " cannot be created: " + e,
          e);
    }
  }

  private static Map<String, AgentTask> index(List<? extends AgentTask> tasks) {
    Map<String, AgentTask> byType = new TreeMap<>();
    for (AgentTask t : tasks) {
      String type = t.type();
      if (type == null || !type.matches(AgentTask.TYPE_PATTERN)) {
        throw new PluginException(
            "plugin "
                + t.getClass().getName()
                + " from "
                + origin(t.getClass())
                + " has type '"
                + type
                + "', which does not match "
                + AgentTask.TYPE_PATTERN);
      }
      AgentTask other = byType.putIfAbsent(type, t);
      if (other != null) {
        throw new PluginException(
            "two plugins have type '"
                + type
                + "': "
                + other.getClass().getName()
                + " (from "
                + origin(other.getClass())
                + ") and "
                + t.getClass().getName()
                + " (from "
                + origin(t.getClass())
                + "); remove one of them or give it another type");
      }
    }
    return byType;
  }

  private static URLClassLoader jarLoader(
      Path dir, ClassLoader parent, Optional<PluginAllowlist> allowlist) {
    if (!Files.isDirectory(dir)) {
      throw new PluginException("worker.plugin-dir " + dir + " is not a directory");
    }
    List<URL> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> found = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
      if (allowlist.isPresent()) {
        allowlist.get().check(found);
      }
      for (Path jar : found) {
        jars.add(jar.toUri().toURL());
      }
    } catch (MalformedURLException e) {
      throw new PluginException("cannot read worker.plugin-dir " + dir + ": " + e, e);
    } catch (IOException e) {
      throw new PluginException("cannot list worker.plugin-dir " + dir + ": " + e, e);
    }
    log.info("Plugin directory {}: {} jar(s) {}", dir, jars.size(), jars);
    return new URLClassLoader("carillon-plugins", jars.toArray(URL[]::new), parent);
  }

  private static String origin(Class<?> c) {
    CodeSource source =
        c.getProtectionDomain() == null ? null : c.getProtectionDomain().getCodeSource();
    return source == null || source.getLocation() == null
        ? "an unknown location"
        : source.getLocation().toString();
  }

  /**
   * The plugin for {@code type}.
   *
   * @param type a task's handler
   * @return the plugin, or empty when this worker has none
   */
  public Optional<AgentTask> find(String type) {
    return Optional.ofNullable(byType.get(type));
  }

  /**
   * The known types, sorted.
   *
   * @return the types
   */
  public Set<String> types() {
    return byType.keySet();
  }

  /**
   * For the startup log.
   *
   * @return {@code type=class} pairs, sorted by type
   */
  public String describe() {
    StringBuilder sb = new StringBuilder("[");
    byType.forEach(
        (type, task) -> {
          if (sb.length() > 1) {
            sb.append(", ");
          }
          sb.append(type).append('=').append(task.getClass().getName());
        });
    return sb.append(']').toString();
  }

  @Override
  public void close() {
    closeQuietly(pluginLoader);
  }

  private static void closeQuietly(URLClassLoader loader) {
    if (loader != null) {
      try {
        loader.close();
      } catch (IOException e) {
        log.warn("Could not close the plugin class loader: {}", e.toString());
      }
    }
  }
}
