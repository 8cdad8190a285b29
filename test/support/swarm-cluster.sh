#!/usr/bin/env bash
# A real Docker Swarm of N nodes on this machine (../shared/reference/swarm.md): one network
# namespace per node, joined by veths to a bridge that lives in a namespace of its own, one
# dockerd per node (its own socket, data root, exec root, hostname and cgroup mounts), `swarm
# init` on the manager's namespace address and `swarm join` of the workers. The test host (this
# namespace) gets an address on the same /24, so berth's ingress proxy reaches host-mode ports on
# every node; no node has a default route (nothing beyond the cluster is contacted).
#
#   swarm-cluster.sh up   <name> <octet> <nodes> <dir> [registry]   prints "node <i> <address> <socket>" lines
#   swarm-cluster.sh kill <name> <i>                     every process of node i dies (SIGKILL)
#   swarm-cluster.sh down <name> <nodes> <dir>           stops the daemons, removes namespaces and <dir>
set -euo pipefail

cmd=$1 name=$2
subnet() { echo "10.$((200 + ${1} / 250)).$((${1} % 250)).0"; }

node_ns() { echo "${name}-n$1"; }

kill_node() {
  local ns; ns=$(node_ns "$1")
  local pids; pids=$(ip netns pids "$ns" 2>/dev/null || true)
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  for _ in $(seq 1 50); do [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && return 0; sleep 0.1; done
}

case "$cmd" in
up)
  octet=$3 nodes=$4 dir=$5 registry=${6:-}
  base=$(subnet "$octet"); prefix=${base%.0}
  mkdir -p "$dir"
  ip netns add "${name}-br"
  ip -n "${name}-br" link add br0 type bridge
  ip -n "${name}-br" link set br0 up
  # the test host's leg: <prefix>.1
  ip link add "${name}-h" type veth peer name host0 netns "${name}-br"
  ip -n "${name}-br" link set host0 master br0 up
  ip addr add "${prefix}.1/24" dev "${name}-h"
  ip link set "${name}-h" up
  for i in $(seq 1 "$nodes"); do
    ns=$(node_ns "$i") addr="${prefix}.$((10 + i))"
    ip netns add "$ns"
    ip -n "${name}-br" link add "v$i" type veth peer name eth0 netns "$ns"
    ip -n "${name}-br" link set "v$i" master br0 up
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    d="$dir/node$i"; mkdir -p "$d/data" "$d/exec"
    # ip netns exec remounts /sys and so drops the cgroup mounts: put them back, then dockerd
    ip netns exec "$ns" unshare --uts sh -c '
      set -e
      mount -t tmpfs cgroup /sys/fs/cgroup
      for h in cpu cpuacct cpuset memory devices freezer blkio pids; do
        mkdir -p /sys/fs/cgroup/$h; mount -t cgroup -o $h cgroup /sys/fs/cgroup/$h
      done
      mkdir -p /sys/fs/cgroup/systemd /sys/fs/cgroup/unified
      mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd
      mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified
      hostname "$1"
      exec dockerd --host "unix://$2/docker.sock" --data-root "$2/data" --exec-root "$2/exec" --pidfile "$2/docker.pid" ${3:+--insecure-registry "$3"}
    ' sh "${name}-node$i" "$d" "$registry" >"$d/dockerd.log" 2>&1 &
  done
  for i in $(seq 1 "$nodes"); do
    sock="$dir/node$i/docker.sock"
    for _ in $(seq 1 100); do docker -H "unix://$sock" version >/dev/null 2>&1 && break; sleep 0.1; done
    docker -H "unix://$sock" version >/dev/null || { tail -20 "$dir/node$i/dockerd.log" >&2; exit 1; }
  done
  manager="${prefix}.11"
  docker -H "unix://$dir/node1/docker.sock" swarm init --advertise-addr "$manager" >/dev/null
  token=$(docker -H "unix://$dir/node1/docker.sock" swarm join-token -q worker)
  for i in $(seq 2 "$nodes"); do
    addr="${prefix}.$((10 + i))"
    docker -H "unix://$dir/node$i/docker.sock" swarm join --token "$token" --advertise-addr "$addr" --listen-addr "$addr:2377" "$manager:2377" >/dev/null
  done
  for i in $(seq 1 "$nodes"); do echo "node $i ${prefix}.$((10 + i)) $dir/node$i/docker.sock"; done
  ;;
kill)
  kill_node "$3"
  ;;
down)
  nodes=$3 dir=$4
  for i in $(seq 1 "$nodes"); do
    pidfile="$dir/node$i/docker.pid"
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  for i in $(seq 1 "$nodes"); do
    for _ in $(seq 1 100); do [ -z "$(ip netns pids "$(node_ns "$i")" 2>/dev/null)" ] && break; sleep 0.1; done
    kill_node "$i"
    ip netns del "$(node_ns "$i")" 2>/dev/null || true
  done
  ip link del "${name}-h" 2>/dev/null || true
  ip netns del "${name}-br" 2>/dev/null || true
  # container mounts lived in the nodes' mount namespaces, gone with them
  rm -rf "$dir"
  ;;
*) echo "usage: $0 up|kill|down …" >&2; exit 2 ;;
esac
