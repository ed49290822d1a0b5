#!/usr/bin/env bash
# Two faults for ShellCheck: an unquoted expansion and a variable
# that is never used.
target=$1
unused="never read"
rm -rf $target/cache
