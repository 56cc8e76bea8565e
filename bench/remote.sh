#!/bin/bash
# remote.sh - what `stap --remote` to two machines costs, against two `stap --vm` runs.
#
# Boots two guests of `stap-vm --ssh` (the reference kernel and the second kernel), then
# times the same one-line script (begin, exit) RUNS times each way, with the module cache
# off (--disable-cache: every run builds) and on (every run after the first is a hit):
#   remote: one `stap --remote A --remote B` (builds for both releases at once, then runs
#           on both guests, which are up already);
#   vm:     `stap --vm -r 6.1 ...; stap --vm -r 6.12 ...` (a build and a boot each).
# Also counts the builds of a --remote to three targets of two releases (must be 2).
# The guests' boots (once, before the runs) are not in either figure.
#
# usage: bench/remote.sh [RUNS]   (default 3)
source "$(dirname "$0")/lib.sh" "${1:-3}"
rel2=$("$top/testsuite/vm/reference-release" --second)
stapvm=$top/staprun/stap-vm

ssh-keygen -q -t ed25519 -N '' -f "$work/id"
: >"$work/known_hosts"
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait; rm -rf "$work"' EXIT
boot() {	# NAME REL: a guest on a free port, its Host block in $work/ssh_config
	local port i
	port=$(shuf -i 20000-60999 -n 1)
	: >"$work/$1.err"
	"$stapvm" --rel "$2" --ssh "$port" --ssh-key "$work/id.pub" --known-hosts "$work/known_hosts" \
		</dev/null >/dev/null 2>"$work/$1.err" &
	pids+=($!)
	for ((i = 0; i < 1200; i++)); do
		grep -q ' is up: ' "$work/$1.err" && break
		sleep 0.1
	done
	grep -q ' is up: ' "$work/$1.err" || { cat "$work/$1.err" >&2; exit 1; }
	printf 'Host %s\n\tHostName 127.0.0.1\n\tPort %s\n\tUser root\n' "$1" "$port" >>"$work/ssh_config"
}
: >"$work/ssh_config"
boot a "$rel"
boot b "$rel2"
printf 'Host *\n\tIdentityFile %s\n\tUserKnownHostsFile %s\n\tBatchMode yes\n' \
	"$work/id" "$work/known_hosts" >>"$work/ssh_config"
export STAPLER_SSH_OPTIONS="-F $work/ssh_config"
echo 'probe begin { printf("%d %s\n", remote_id(), execname()) exit() }' >"$work/s.stp"
cd "$work"

seconds() {	# COMMAND...: mean wall seconds over RUNS runs (each must succeed)
	local start end
	start=$(date +%s%N)
	for _ in $(seq "$runs"); do
		"$@" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; exit 1; }
	done
	end=$(date +%s%N)
	awk -v ns=$((end - start)) -v n="$runs" 'BEGIN { printf "%.2f", ns / n / 1e9 }'
}
two_vm() { "$ours" "$@" --vm -r "$rel" s.stp && "$ours" "$@" --vm -r "$rel2" s.stp; }

echo "stap --remote to two guests ($rel, $rel2) against two stap --vm runs; $runs runs each"
for cache in off on; do
	opt=()
	[ $cache = off ] && opt=(--disable-cache)
	[ $cache = on ] && "$ours" --remote a --remote b s.stp >/dev/null 2>&1 # fill the cache
	remote=$(seconds "$ours" ${opt[@]+"${opt[@]}"} --remote a --remote b s.stp)
	vm=$(seconds two_vm ${opt[@]+"${opt[@]}"})
	printf 'module cache %-3s  remote %6.2f s   two --vm %6.2f s   ratio %s\n' "$cache" "$remote" \
		"$vm" "$(ratio "$remote" "$vm")"
done
builds=$("$ours" --vp 1 --disable-cache --remote a --remote b --remote "$(sed -n 's/^\tPort //p' \
	ssh_config | head -n 1 | sed 's/^/root@127.0.0.1:/')" s.stp 2>&1 >/dev/null | grep -c '^Building for ')
echo "builds for 3 targets of 2 releases: $builds"
