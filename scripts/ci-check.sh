#!/usr/bin/env bash
# nvbridge in a CI job (no Neovim running): organize the imports of every Go
# file, apply a rename across the repository (optional), write the files, then
# fail the job when any file has error diagnostics.
#
#   RENAME='{"file":"orders/orders.go","line":33,"symbol":"Process","new_name":"ProcessOrder"}' \
#     scripts/ci-check.sh [ROOT]
#
# Needs nvbridge on PATH (make install: it brings its Neovim and gopls) and jq.
# The first `nvbridge call` starts a warm daemon for ROOT (Neovim + servers);
# the others reuse it; the trap stops it. A tool that fails (exit 1) fails the
# job (set -e). Exit status: 0 clean, 1 error diagnostics or a failed tool.
set -euo pipefail
root=$(cd "${1:-.}" && pwd)
files=$(cd "$root" && { git ls-files '*.go' 2>/dev/null || find . -name '*.go' | sed 's|^\./||'; })
[ -n "$files" ] || files=$(cd "$root" && find . -name '*.go' | sed 's|^\./||' | sort)

call() { nvbridge --root "$root" call "$@"; }
trap 'nvbridge --root "$root" daemon stop' EXIT

for f in $files; do
	call organize_imports "$(jq -nc --arg f "$f" '{file: $f, preview: false, save: true}')" |
		jq -r 'select(.changed) | "organized \(.file): removed \(.removed_imports), added \(.added_imports)"'
done

if [ -n "${RENAME:-}" ]; then
	call rename_symbol "$(printf '%s' "$RENAME" | jq -c '. + {preview: false, save: true}')" |
		jq -r '"renamed \(.old_name) to \(.new_name) in \(.affected_files | join(", "))"'
fi

# Check in a fresh session that reads the written files: right after a
# multi-file edit, a server may still publish diagnostics of one file computed
# against the old text of another.
nvbridge --root "$root" daemon stop 2>/dev/null

status=0
for f in $files; do
	out=$(call get_diagnostics "$(jq -nc --arg f "$f" '{file: $f, severity: "error"}')")
	printf '%s\n' "$out" | jq -r '.diagnostics[] | "\(.file):\(.line):\(.column): error: \(.message)"'
	if [ "$(printf '%s' "$out" | jq '.total')" != 0 ]; then
		status=1
	fi
	if [ "$(printf '%s' "$out" | jq '.diagnostics_complete')" = false ]; then
		echo "$f: the server did not finish checking it in time" >&2
		status=1
	fi
done
exit $status
