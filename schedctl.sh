#!/usr/bin/env bash
# The Carillon operator CLI (the module directory is called schedctl/, hence the .sh).
# Builds the CLI's jar on first use, or when a source it is built from is newer, and runs it; every
# argument is passed through: ./schedctl.sh get instances --task daily-digest -o json
# Settings: CARILLON_DB_URL, CARILLON_DB_USER, CARILLON_DB_PASSWORD[_FILE],
# CARILLON_KAFKA_BOOTSTRAP, or --config FILE. SCHEDCTL_JAVA_OPTS adds JVM options.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

find_jar() {
  local j
  for j in "$root"/schedctl/target/schedctl-*-all.jar; do
    if [[ -f "$j" ]]; then
      echo "$j"
      return 0
    fi
  done
  return 1
}

needs_build() {
  local jar
  jar="$(find_jar)" || return 0
  [[ -n "$(find "$root/schedctl" "$root/common-model" "$root/worker-api" "$root/pom.xml" \
      -path '*/target' -prune -o -type f \
      \( -name '*.java' -o -name 'pom.xml' -o -name '*.sql' -o -name '*.xml' \) \
      -newer "$jar" -print 2>/dev/null | head -n 1)" ]]
}

if needs_build; then
  echo "schedctl: building the CLI jar (first run or sources changed) ..." >&2
  (cd "$root" && ./mvnw -B -q -pl schedctl -am package -DskipTests -Dspotless.check.skip=true) >&2
fi

jar="$(find_jar)" || {
  echo "schedctl: the build produced no schedctl/target/schedctl-*-all.jar" >&2
  exit 1
}
# shellcheck disable=SC2086 # SCHEDCTL_JAVA_OPTS holds several JVM options
exec java ${SCHEDCTL_JAVA_OPTS:-} -jar "$jar" "$@"
