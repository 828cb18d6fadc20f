#!/usr/bin/env bash
# A standalone ZooKeeper for a local kafgo cluster, from Debian's zookeeper
# package (apt-get install zookeeper; it brings Java), listening on
# 127.0.0.1 only. The zoo.cfg it writes is the smallest that serves:
# tickTime, dataDir, clientPort (and clientPortAddress), with the embedded
# admin server off so it needs no second port.
#
#   scripts/zookeeper.sh start   start in the background; returns once it serves
#   scripts/zookeeper.sh stop    stop the server started by "start" and delete
#                                its directory (unless ZK_DIR was given)
#   scripts/zookeeper.sh run     run in the foreground; Ctrl-C stops it
#
# Settings, from the environment:
#   ZK_PORT    client port (default 2181); brokers then take
#              --zookeeper.connect 127.0.0.1:$ZK_PORT
#   ZK_DIR     data, zoo.cfg and log (default ${TMPDIR:-/tmp}/kafgo-zookeeper-$ZK_PORT)
#   ZK_SERVER  the server script (default /usr/share/zookeeper/bin/zkServer.sh)
set -euo pipefail

port=${ZK_PORT:-2181}
dir=${ZK_DIR:-${TMPDIR:-/tmp}/kafgo-zookeeper-$port}
zk=${ZK_SERVER:-/usr/share/zookeeper/bin/zkServer.sh}
me=$(basename "$0")

die() { echo "$me: $*" >&2; exit 1; }

write_config() {
	[[ -x $zk ]] || die "$zk not found: install ZooKeeper with apt-get install zookeeper"
	mkdir -p "$dir/data"
	cat >"$dir/zoo.cfg" <<CFG
# written by kafgo scripts/zookeeper.sh
tickTime=2000
initLimit=10
syncLimit=5
dataDir=$dir/data
clientPort=$port
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=srvr
CFG
}

# serving is true when a standalone ZooKeeper answers "srvr" on the port.
serving() {
	local reply
	# Bounded: something else on the port may accept and never answer.
	reply=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf srvr >&3 && cat <&3' _ "$port" 2>/dev/null) || return 1
	[[ $reply == *"Mode: standalone"* ]]
}

running_pid() {
	local pid
	[[ -f $dir/pid ]] || return 1
	pid=$(<"$dir/pid")
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

start() {
	if serving; then
		die "a ZooKeeper already serves 127.0.0.1:$port; use it, or pick another port with ZK_PORT=<port>"
	fi
	write_config
	# zkServer.sh execs the JVM, so $! is the server's own pid.
	ZOO_LOG_DIR=$dir nohup "$zk" start-foreground "$dir/zoo.cfg" >"$dir/zookeeper.log" 2>&1 </dev/null &
	echo $! >"$dir/pid"
	# A cold JVM on a busy machine can take a while: up to 60 s.
	for _ in $(seq 1 120); do
		if serving; then
			echo "ZooKeeper serving on 127.0.0.1:$port (pid $(<"$dir/pid"), files in $dir)"
			return 0
		fi
		if ! running_pid >/dev/null; then
			tail -n 20 "$dir/zookeeper.log" >&2 || true
			die "ZooKeeper exited during start-up (is port $port taken? try ZK_PORT=<port>); log: $dir/zookeeper.log"
		fi
		sleep 0.5
	done
	stop
	die "ZooKeeper did not serve on 127.0.0.1:$port within 60 s"
}

stop() {
	local pid
	if pid=$(running_pid); then
		kill "$pid"
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid"
		fi
		echo "ZooKeeper on 127.0.0.1:$port stopped"
	elif [[ ! -d $dir ]]; then
		die "no ZooKeeper started by $me on port $port ($dir does not exist)"
	fi
	if [[ -z ${ZK_DIR:-} ]]; then
		rm -rf "$dir"
	else
		rm -f "$dir/pid"
	fi
}

run() {
	write_config
	echo "ZooKeeper on 127.0.0.1:$port, files in $dir; Ctrl-C stops it"
	ZOO_LOG_DIR=$dir exec "$zk" start-foreground "$dir/zoo.cfg"
}

case ${1:-} in
start) start ;;
stop) stop ;;
run) run ;;
*)
	echo "usage: $me start|stop|run   (ZK_PORT, ZK_DIR, ZK_SERVER: see the script's header)" >&2
	exit 2
	;;
esac
