#!/bin/sh
# Builds tools/kafka-mock/kafka-mock (a librdkafka mock cluster as a process) when it is missing or
# older than its source. Needs a C compiler and the librdkafka headers (Debian: librdkafka-dev).
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
source="$dir/kafka-mock.c"
binary="$dir/kafka-mock"

if [ -x "$binary" ] && [ "$binary" -nt "$source" ]; then
  exit 0
fi
if ! command -v cc >/dev/null 2>&1; then
  echo "kafka-mock: no C compiler (cc) found; install build-essential (Debian) to build $binary" >&2
  exit 1
fi
if ! printf '#include <librdkafka/rdkafka.h>\n#include <librdkafka/rdkafka_mock.h>\n' | cc -E -x c - >/dev/null 2>&1; then
  echo "kafka-mock: librdkafka headers not found (librdkafka/rdkafka_mock.h); install the Debian package librdkafka-dev (apt-get install librdkafka-dev)" >&2
  exit 1
fi
cc -O2 -Wall -Wextra -pthread -o "$binary.tmp" "$source" -lrdkafka
mv "$binary.tmp" "$binary"
