#!/usr/bin/env bash
# Helpers sourced by main.sh.

greet() {
	local name=$1
	echo "hello, $name"
}

count_words() {
	local text=$1
	echo "$text" | wc -w
}
