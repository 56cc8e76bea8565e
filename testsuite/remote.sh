# remote.sh - stap --remote end to end, over the real ssh to real sshds: two guests of
# `stap-vm --ssh` (dropbear in each, 127.0.0.1 only), one booting the reference kernel and
# one the second kernel (6.12; the reference again when it is not cached).  Tests: ssh to a
# guest with its known host key; one script on both at once (and on the first again under
# another name: one build per kernel release), each line with its prefix, remote_id() and
# remote_uri(), -c on each; Ctrl-C ends both with their end probes; a target that cannot be
# reached is named and the others still run; a failing script's status; stap-exporter in the
# first guest scraped by Debian's Prometheus here.  The option checks that need no host,
# and stap-exporter's answers that need no module, are in cli.sh.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

vm=$top/testsuite/vm
STAPVM=$top/staprun/stap-vm
if ! rel=$("$vm/reference-release" 2>/dev/null); then
	skip "remote: every test (no reference kernel headers; run ./setup)"
	exit 0
fi
for tool in qemu-system-x86_64 ssh ssh-keygen dropbear dropbearkey; do
	if ! command -v $tool >/dev/null; then
		skip "remote: every test ($tool is not installed; run ./setup)"
		exit 0
	fi
done
rel2=$("$vm/reference-release" --second 2>/dev/null) || rel2=
[ -n "$rel2" ] && [ -d "/usr/src/linux-headers-$rel2" ] || rel2=$rel
work=$WORK/remote
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
LIMIT=180 # seconds for one stap --remote run, builds included

ssh-keygen -q -t ed25519 -N '' -f "$work/id" || exit 1
: >"$work/known_hosts"

# Job control: each background job is a process group of its own (a signal to the group is
# a Ctrl-C on the terminal).
set -m

# free_port: a port of 127.0.0.1 nobody listens on now.
free_port() {
	local port
	while :; do
		port=$(shuf -i 20000-60999 -n 1)
		ss -Htln "sport = :$port" 2>/dev/null | grep -q . || break
	done
	echo "$port"
}

# start_guest NAME REL [exporter]: `stap-vm --ssh PORT` booting REL (with "exporter": also
# stap-exporter in its /bin, its port 9900 reached here at $exporter_port), on a port nobody listens on (a
# few tries: another program may take one between the look and qemu's bind); waits until
# it is up; adds Host NAME to the ssh configuration.  Sets guest_pids[NAME].
declare -A guest_pids guest_ports
start_guest() {
	local name=$1 r=$2 port try i opts
	for try in 1 2 3 4 5; do
		port=$(free_port)
		opts=()
		if [ "${3:-}" = exporter ]; then
			exporter_port=$(free_port)
			opts=(--bin "$top/staprun/stap-exporter" --forward "$exporter_port:9900")
		fi
		: >"$work/$name.vm.err" # before the job's redirection: the loop below reads it
		"$STAPVM" --rel "$r" --ssh "$port" --ssh-key "$work/id.pub" ${opts[@]+"${opts[@]}"} \
			--known-hosts "$work/known_hosts" --console "$work/$name.console" \
			>"$work/$name.vm.out" 2>"$work/$name.vm.err" </dev/null &
		guest_pids[$name]=$!
		for ((i = 0; i < 1200; i++)); do
			grep -q ' is up: ' "$work/$name.vm.err" && break
			kill -0 "${guest_pids[$name]}" 2>/dev/null || break
			sleep 0.1
		done
		if grep -q ' is up: ' "$work/$name.vm.err"; then
			guest_ports[$name]=$port
			printf 'Host %s\n\tHostName 127.0.0.1\n\tPort %s\n\tUser root\n' \
				"$name" "$port" >>"$work/ssh_config"
			return 0
		fi
		kill -TERM "${guest_pids[$name]}" 2>/dev/null
		wait "${guest_pids[$name]}" 2>/dev/null
		grep -q 'hostfwd\|Could not set up host forwarding' "$work/$name.vm.err" || break
	done
	return 1
}

# stop_guest NAME: SIGTERM powers it off; its status (0: the kernel log was clean and no
# module was left loaded).
stop_guest() {
	local pid=${guest_pids[$1]}
	kill -TERM "$pid" 2>/dev/null
	wait_job "$pid" 60
	guest_status=$job_status
}

# The ssh options every stap --remote here uses: ours, not the user's (a Host block for
# each guest, then what every host here gets: our key, our known_hosts, no questions).
export STAPLER_SSH_OPTIONS="-F $work/ssh_config"
: >"$work/ssh_config"
# g1 also runs stap-exporter (when it is built)
exporter_port=
g1_extra=
[ -x "$top/staprun/stap-exporter" ] && g1_extra=exporter
started=1
start_guest g1 "$rel" $g1_extra && start_guest g2 "$rel2" || started=0
cat >>"$work/ssh_config" <<EOF
Host *
	IdentityFile $work/id
	IdentitiesOnly yes
	UserKnownHostsFile $work/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 20
EOF
if [ $started = 0 ]; then
	fail "remote: stap-vm --ssh boots a guest with an SSH server" \
		"$(cat "$work"/g*.vm.err)" "$(tail -n 20 "$work"/g*.console 2>/dev/null)"
	for g in "${!guest_pids[@]}"; do kill -TERM "${guest_pids[$g]}" 2>/dev/null; done
	wait
	exit 0
fi
trap 'for g in "${!guest_pids[@]}"; do kill -TERM "${guest_pids[$g]}" 2>/dev/null; done' EXIT

# ---- the guest's SSH server, its host key checked ----
out=$(ssh -F "$work/ssh_config" g2 'uname -r; command -v staprun; staprun -V' 2>&1 </dev/null)
if [ "$(sed -n 1p <<<"$out")" = "$rel2" ] && grep -q '^/usr/bin/staprun$' <<<"$out" &&
	grep -q '^Stapler module loader' <<<"$out" && [ "$(wc -l <"$work/known_hosts")" = 2 ]; then
	pass "remote: stap-vm --ssh: ssh reaches the guest, its host key in --known-hosts' file"
else
	fail "remote: stap-vm --ssh: ssh reaches the guest, its host key in --known-hosts' file" \
		"$out" "known_hosts:" "$(cat "$work/known_hosts")"
fi

details() {
	printf '%s\n' "status $run_status" "stdout:" "$(cat "$1.out")" "stderr:" "$(cat "$1.err")"
}

# ---- one script on both guests, and on the first again under another name ----
cat >both.stp <<'STP'
global opens
probe begin { printf("begin %d %s\n", remote_id(), remote_uri()) }
probe syscall.openat { if (pid() == target() || ppid() == target()) opens++ }
probe end { printf("end %d %s\n", remote_id(), opens > 0 ? "saw the command's opens" : "saw nothing") }
STP
g1_again="ssh://root@127.0.0.1:${guest_ports[g1]}"
"$STAP" --vp 1 --remote g1 --remote g2 --remote "$g1_again" --remote-prefix \
	-c 'cat /proc/version' both.stp >both.out 2>both.err </dev/null &
wait_job $! "$LIMIT"
run_status=$job_status
ok=1
for n in 0 1 2; do
	uri=g1
	[ $n = 1 ] && uri=g2
	[ $n = 2 ] && uri=$g1_again
	grep -qxF "$n: begin $n $uri" both.out || ok=0
	grep -qxF "$n: end $n saw the command's opens" both.out || ok=0
	grep -q "^$n: Linux version " both.out || ok=0
done
grep -q "^1: Linux version $rel2 " both.out || ok=0
# every line of the output is one target's, whole
grep -qv '^[012]: ' both.out && ok=0
if [ "$run_status" = 0 ] && [ $ok = 1 ]; then
	pass "remote: one script on two guests at once: each line with its prefix, remote_id()," \
		"remote_uri(), -c CMD run on each"
else
	fail "remote: one script on two guests at once: each line with its prefix" "$(details both)"
fi
builds=$(grep -c '^Building for ' both.err)
want=2
[ "$rel2" = "$rel" ] && want=1
if [ "$builds" = "$want" ] && grep -q "^Building for $rel2 " both.err; then
	pass "remote: one build per distinct kernel release ($want for 3 targets)"
else
	fail "remote: one build per distinct kernel release ($want for 3 targets)" \
		"$(grep '^Building for ' both.err)"
fi

# ---- Ctrl-C: end probes on every target ----
cat >sigint.stp <<'STP'
probe begin { printf("running %d\n", remote_id()) }
probe end { printf("end probe %d\n", remote_id()) }
STP
# ctrl_c_when PID TEST...: once TEST succeeds (or PID has ended), SIGINT to PID's process
# group, as a Ctrl-C on the terminal; then waits for PID (job_status).
ctrl_c_when() {
	local pid=$1 i
	shift
	for ((i = 0; i < LIMIT * 10; i++)); do
		"$@" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT -- -"$pid" 2>/dev/null
	wait_job "$pid" 60
}
both_running() { [ "$(grep -c '^[01]: running' sigint.out)" = 2 ]; }
"$STAP" --remote g1 --remote g2 --remote-prefix sigint.stp >sigint.out 2>sigint.err </dev/null &
ctrl_c_when $! both_running
run_status=$job_status
if [ "$run_status" = 0 ] && [ "$(sort sigint.out)" = "$(printf '%s\n' '0: end probe 0' \
	'0: running 0' '1: end probe 1' '1: running 1')" ] && ! grep -q . sigint.err; then
	pass "remote: Ctrl-C (SIGINT) ends the script on both guests with their end probes"
else
	fail "remote: Ctrl-C (SIGINT) ends the script on both guests with their end probes" \
		"$(details sigint)"
fi

# ---- a host that cannot be reached, and a failing script: named; the others run; -o ----
cat >partial.stp <<'STP'
probe begin { printf("ran on %d\n", remote_id()); if (remote_id() == 1) error("deliberate failure") else exit() }
STP
# (the script on standard input: each release's build reads it)
"$STAP" --remote g1 --remote g2 --remote 127.0.0.1:1 -o partial.o - >partial.out 2>partial.err <partial.stp &
wait_job $! "$LIMIT"
run_status=$job_status
if [ "$run_status" = 1 ] && grep -qx 'ran on 0' partial.o && grep -qx 'ran on 1' partial.o &&
	[ ! -s partial.out ] &&
	grep -q '^ERROR: --remote 127.0.0.1:1 (2): cannot connect over ssh' partial.err &&
	grep -q 'Connection refused' partial.err &&
	grep -q '^ERROR: --remote g2 (1): staprun exited with status 1' partial.err &&
	grep -q '^ERROR: deliberate failure' partial.err &&
	! grep -q -- '--remote g1 ' partial.err; then
	pass "remote: an unreachable host and a failing run are named; the others run; status 1;" \
		"-o gets the output"
else
	fail "remote: an unreachable host and a failing run are named; the others run; status 1" \
		"$(details partial)" "-o:" "$(cat partial.o)"
fi

# ---- Ctrl-C while the modules are built: said once; no connection or copy left ----
mkdir -p "$work/tmp-int"
TMPDIR=$work/tmp-int "$STAP" --vp 1 --disable-cache --remote g1 --remote g2 partial.stp \
	>interrupt.out 2>interrupt.err </dev/null &
ctrl_c_when $! grep -q '^Building for ' interrupt.err
run_status=$job_status
# (a master told to exit may take a moment to go)
for ((i = 0; i < 50; i++)); do
	left=$(pgrep -af "$work/tmp-int" || true)
	[ -z "$left" ] && break
	sleep 0.1
done
copies=$(ssh -F "$work/ssh_config" g1 'ls -d /tmp/stapler-remote.* 2>/dev/null' </dev/null || true)
if [ "$run_status" = 1 ] && grep -q '^stap: interrupted before the script ran on the --remote hosts$' \
	interrupt.err && ! grep -q -- '^ERROR: --remote' interrupt.err && [ ! -s interrupt.out ] &&
	[ -z "$left" ] && [ -z "$copies" ] && [ -z "$(ls -A "$work/tmp-int")" ]; then
	pass "remote: Ctrl-C during the builds ends it, said once; no ssh master, folder or copy left"
else
	fail "remote: Ctrl-C during the builds ends it, said once; no ssh master, folder or copy left" \
		"$(details interrupt)" "left: $left" "copies: $copies" "tmp: $(ls -A "$work/tmp-int")"
fi

# ---- stap-exporter in the guest, scraped by Prometheus here ----
# A test script whose counter we know (the sync calls we make), and the three shipped
# examples, built here for g1's kernel and copied in; Prometheus scrapes each page every 2 s.
if [ -z "$exporter_port" ]; then
	skip "remote: Prometheus scrapes stap-exporter in a guest (stap-exporter is not built: run ./setup)"
elif ! command -v prometheus >/dev/null || ! command -v curl >/dev/null; then
	skip "remote: Prometheus scrapes stap-exporter in a guest (prometheus or curl is not installed: run ./setup)"
else
	mkdir -p exporter
	cat >exporter/synctest.stp <<'STP'
global syncs
probe syscall.sync { syncs[execname()]++ }
probe prometheus { @prometheus_dump_array1(syncs, "stapler_test_syncs_total", "name") }
STP
	built=1
	pages=(synctest syscalls vfs_bytes tcp_retransmits)
	for page in "${pages[@]}"; do
		src=$work/exporter/$page.stp
		[ -f "$src" ] || src=$top/examples/exporter/$page.stp
		(cd exporter && "$STAP" -p4 -r "$rel" -m "$page" "$src" >/dev/null 2>"$page.err") || built=0
	done
	ssh_g1() { ssh -F "$work/ssh_config" g1 "$@"; }
	ok=$built
	ssh_g1 'mkdir -p /root/exporter' </dev/null || ok=0
	for page in "${pages[@]}"; do
		ssh_g1 "cat >/root/exporter/$page.ko" <"exporter/$page.ko" || ok=0
	done
	ssh_g1 'setsid stap-exporter -v -k 600 -s /root/exporter </dev/null >/tmp/exporter.log 2>&1 &' </dev/null || ok=0
	prom_port=$(free_port)
	{
		printf 'global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\nscrape_configs:\n'
		for page in "${pages[@]}"; do
			printf '  - job_name: %s\n    metrics_path: /%s\n    static_configs:\n' "$page" "$page"
			printf "      - targets: ['127.0.0.1:%s']\n" "$exporter_port"
		done
	} >prometheus.yml
	prometheus --config.file=prometheus.yml --storage.tsdb.path="$work/prometheus-data" \
		--web.listen-address="127.0.0.1:$prom_port" >prometheus.log 2>&1 &
	prom_pid=$!
	query() {	# QUERY: the value of its first sample, or nothing
		curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$prom_port/api/v1/query" |
			sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
	}
	# every page up (the first scrape of each starts its script)
	for ((i = 0; i < 600 && ok == 1; i++)); do
		[ "$(query 'count(up == 1)')" = 4 ] && break
		sleep 0.2
	done
	# 4 syncs, and reads and writes through the VFS (the examples' pages have series only
	# once their probes fired; each page is scraped on its own 2 s clock, so wait for all)
	ssh_g1 'sync; sync; sync; sync; cat /etc/passwd >/tmp/vfs-test; cat /tmp/vfs-test >/dev/null' </dev/null
	syncs= up= sys= vfs=
	for ((i = 0; i < 300 && ok == 1; i++)); do
		syncs=$(query 'stapler_test_syncs_total{name="sync",job="synctest"}')
		up=$(query 'count(up == 1)')
		sys=$(query 'count(stapler_syscalls_total)')
		vfs=$(query 'count(stapler_vfs_bytes_total)')
		[ "$syncs" = 4 ] && [ "$up" = 4 ] && [ "${sys:-0}" -gt 0 ] && [ "${vfs:-0}" -gt 0 ] && break
		sleep 0.2
	done
	if [ $ok = 1 ] && [ "$up" = 4 ] && [ "$syncs" = 4 ] && [ "${sys:-0}" -gt 0 ] && [ "${vfs:-0}" -gt 0 ]; then
		pass "remote: Prometheus scrapes stap-exporter in a guest: the counts match the script's" \
			"(4 syncs), every shipped example parses"
	else
		fail "remote: Prometheus scrapes stap-exporter in a guest" "built $built, ok $ok," \
			"up $up, syncs '$syncs', syscall series '$sys', vfs series '$vfs'" \
			"$(cat exporter/*.err)" "exporter log:" "$(ssh_g1 'cat /tmp/exporter.log' </dev/null)" \
			"$(curl -s "http://127.0.0.1:$prom_port/api/v1/targets" | head -c 2000)"
	fi
	kill "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null
	# the exporter ends its scripts (their modules unloaded) when it ends
	ssh_g1 'kill $(pidof stap-exporter); i=0; while pidof stap-exporter >/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done' </dev/null
fi

# ---- the guests power off cleanly: no kernel problem, no module left behind ----
stop_guest g1
s1=$guest_status
stop_guest g2
trap - EXIT
if [ "$s1" = 0 ] && [ "$guest_status" = 0 ]; then
	pass "remote: both guests end cleanly (no kernel problem, no module left loaded)"
else
	fail "remote: both guests end cleanly" "g1: $s1 $(cat g1.vm.err)" "g2: $guest_status $(cat g2.vm.err)"
fi
