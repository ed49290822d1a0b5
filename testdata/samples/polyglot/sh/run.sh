#!/usr/bin/env bash
greet() {
	echo "hello, $1"
}

target=$1
greet "world"
rm -rf $target/cache
