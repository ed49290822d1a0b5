#!/usr/bin/env bash
# Greets and counts; sources lib.sh from its own folder.
set -euo pipefail
here=$(dirname "$0")
# shellcheck source=lib.sh
source "$here/lib.sh"

greet "world"
words=$(count_words "one two three")
echo "words: $words"
greet "again"
