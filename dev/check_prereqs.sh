#!/usr/bin/env bash
# Checks the tools the project needs before anything is installed or started.
#   bash dev/check_prereqs.sh python   -> only Python 3.11+ (enough for `make install` and unit tests)
#   bash dev/check_prereqs.sh          -> also Java 17+ and Maven (the local OpenSearch node, `make up`)
#                                         and Chromium (the workbench's browser tests; installed as root)
# Prints how to install whatever is missing and exits non-zero.
set -u

missing=0
fail() {
  echo "missing prerequisite: $1" >&2
  echo "  install with: $2" >&2
  missing=1
}

python_bin="${PYTHON:-python3.11}"
command -v "$python_bin" >/dev/null 2>&1 || python_bin=python3
if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
  fail "Python 3.11 or newer (tried '${PYTHON:-python3.11}' and 'python3')" \
    "apt-get install python3.11 python3.11-venv   (then: make install PYTHON=python3.11)"
fi

if [ "${1:-}" != "python" ]; then
  java_bin="java"
  [ -n "${JAVA_HOME:-}" ] && java_bin="$JAVA_HOME/bin/java"
  java_major=""
  if command -v "$java_bin" >/dev/null 2>&1; then
    # `java -version` prints e.g. 'openjdk version "17.0.15" ...' (or "1.8.0_..." for Java 8) on stderr.
    java_major=$("$java_bin" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\)\(\.[0-9]*\)*.*".*/\1/p' | head -1)
  fi
  if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
    fail "Java 17 or newer (found: ${java_major:-none}) for the local OpenSearch node" \
      "apt-get install openjdk-17-jdk-headless"
  fi
  if ! command -v mvn >/dev/null 2>&1; then
    fail "Maven (fetches the OpenSearch jars on the first 'make up')" "apt-get install maven"
  fi
  # The workbench's browser tests drive Debian's Chromium through Playwright (never a downloaded
  # browser). As root it is installed here; otherwise it is reported like any other prerequisite.
  chromium_bin="${WORKBENCH_CHROMIUM:-/usr/bin/chromium}"
  if [ ! -x "$chromium_bin" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium for the workbench's browser tests (apt-get install chromium)" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q chromium || { apt-get update -q && apt-get install -y -q chromium; }; } >/dev/null 2>&1
  fi
  if [ ! -x "$chromium_bin" ]; then
    fail "Chromium at $chromium_bin (the workbench's browser tests; or set WORKBENCH_CHROMIUM)" \
      "sudo apt-get install chromium"
  fi
fi

exit "$missing"
