package dev.carillon.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Library versions read from the Maven metadata inside their jars (kept by the shaded jar). */
public final class Versions {
  private Versions() {}

  /** The version of {@code groupId:artifactId} on the classpath, or {@code "?"}. */
  public static String of(String groupId, String artifactId) {
    String path = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
    try (InputStream in = Versions.class.getResourceAsStream(path)) {
      if (in == null) {
        return "?";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "?");
    } catch (IOException e) {
      return "?";
    }
  }
}
