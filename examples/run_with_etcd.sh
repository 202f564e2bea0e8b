#!/usr/bin/env bash
# Runs a program against a throwaway etcd on loopback, for ctest:
#
#   run_with_etcd.sh ETCD PROGRAM [ARGS...]   # runs PROGRAM http://127.0.0.1:PORT ARGS...
#
# Starts ETCD (Debian's etcd-server: /usr/bin/etcd) with free ports and a
# temporary data directory, waits at most 10 s for it to answer /health,
# runs the program with the client endpoint as its first argument (at most
# 40 s), then stops etcd and removes the directory, whatever happened.
# Exits with the program's status; 1 when etcd could not be started.
set -euo pipefail
if (($# < 2)); then
  echo "usage: run_with_etcd.sh ETCD PROGRAM [ARGS...]" >&2
  exit 2
fi
etcd=$1
program=$2
shift 2
if [[ ! -x $etcd ]]; then
  echo "run_with_etcd: etcd not found ('$etcd'): apt-get install etcd-server (scripts/install-deps.sh)" >&2
  exit 1
fi

dir=$(mktemp -d /tmp/stormguard-example-etcd-XXXXXX)
pid=
cleanup() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # ctest's timeout: still stop etcd and clean up

# A port nothing listens on now, from below the kernel's ephemeral range
# (ip_local_port_range): an outgoing connection never takes one of those,
# so it stays free until etcd binds it. Another test may still take it
# first; then etcd exits, and the loop below tries other ports.
read -r ephemeral_low _ </proc/sys/net/ipv4/ip_local_port_range || ephemeral_low=32768
if ((ephemeral_low < 11000)); then ephemeral_low=32768; fi
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((10000 + RANDOM % (ephemeral_low - 10000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# Whether etcd at port $1 answers GET /health with health true.
healthy() {
  local answer
  answer=$(timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 &&
    printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && cat <&3" 2>/dev/null) || return 1
  [[ $answer == *'"health":"true"'* ]]
}

started=false
for attempt in 1 2 3 4 5; do
  client=$(free_port)
  peer=$(free_port)
  echo "--- attempt $attempt: client port $client, peer port $peer" >>"$dir/etcd.log"
  "$etcd" --name example --data-dir "$dir/data" \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "example=http://127.0.0.1:$peer" >>"$dir/etcd.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do  # 100 x 0.1 s
    if healthy "$client"; then
      started=true
      break
    fi
    kill -0 "$pid" 2>/dev/null || break  # exited: a port was taken
    sleep 0.1
  done
  $started && break
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  rm -rf "$dir/data"
done
if ! $started; then
  echo "run_with_etcd: etcd did not become healthy; its log:" >&2
  cat "$dir/etcd.log" >&2
  exit 1
fi

status=0
timeout 40 "$program" "http://127.0.0.1:$client" "$@" || status=$?
exit "$status"
