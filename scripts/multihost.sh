#!/usr/bin/env bash
# A multi-host test bed on one machine: each "host" is a network namespace
# with its own hostname (UTS namespace), its own /dev/shm, /etc/hosts and
# kernel boot id (mount namespace: UCX takes processes with one boot id for
# one machine), joined to the others by a veth pair on a private bridge.
#
#   multihost.sh up N [--shared-identity]   make hosts mpnh0..mpnh{N-1}
#       (--shared-identity: one hostname and the machine's boot id for all,
#       as containers on one machine have; /dev/shm and network stay apart)
#   multihost.sh down                       remove everything it made
#   multihost.sh with N [--shared-identity] -- CMD...
#       up, CMD, down (also when CMD fails or is killed); CMD's status
#   multihost.sh exec HOST CMD...           run CMD on HOST
#   multihost.sh run [--hosts K] openmpi|mpich NP PROGRAM [ARGS...]
#       ranks round-robin over the first K hosts (all by default; rank r
#       on host r % K), launched
#       from mpnh0 (Open MPI through an rsh agent, MPICH's hydra through
#       -launcher-exec) with this environment; first checks that the ranks
#       really are on different hosts
#   multihost.sh cut HOST | mend HOST       take HOST's link down / up
#   multihost.sh add-net                    a second network: eth1 on every
#       host, on its own bridge (10.213.98.0/24), for traffic kept apart
#       from the launcher's and the host MPI's (eth0)
#   multihost.sh unroute HOST               HOST loses its route on eth1
#       (the address stays: connects from it fail, connects to it time out)
#   multihost.sh leftovers                  fails if, 10 s on, a process is
#       left on a host or a file of the library in its /dev/shm
#   multihost.sh available                  exit 0 if namespaces can be made
#   multihost.sh rsh [OPTS] HOST CMD...     the launchers' remote shell
#
# Needs root and iproute2. Traffic stays on the bridge (10.213.97.0/24).
set -euo pipefail

self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=/run/mpinotify-multihost
prefix=mpnh
bridge=mpnh-br
subnet=10.213.97
second_bridge=mpnh-br1
second_subnet=10.213.98

die() {
  echo "multihost: $*" >&2
  exit 1
}

host_count() {
  [ -f "$state/hosts.count" ] || die "no hosts are up (multihost.sh up N)"
  cat "$state/hosts.count"
}

# Runs CMD in HOST's namespaces (network, UTS, mount). A host's mount
# namespace does not see the other hosts' namespace files (they were bound
# later, or in another namespace), so the way in starts from the machine's
# mount namespace, held by an anchor process.
enter() {
  local host=$1
  shift
  [ -f "$state/$host.boot_id" ] || die "no host $host"
  exec nsenter -t "$(cat "$state/anchor.pid")" -m -- nsenter --net="/run/netns/$host" \
    --uts="$state/$host.uts" --mount="$state/$host.mnt" --wd="$PWD" -- "$@"
}

cmd_available() {
  [ "$(id -u)" -eq 0 ] || die "not root"
  command -v ip >/dev/null || die "no ip (iproute2)"
  command -v nsenter >/dev/null || die "no nsenter (util-linux)"
  ip netns add "${prefix}-probe" 2>/dev/null || die "cannot make a network namespace"
  ip netns del "${prefix}-probe"
}

cmd_down() {
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix" || true); do
    # Every process left in the host (a crashed run's ranks) goes first.
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  sleep 0.2
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  if [ -d "$state" ]; then
    local f
    for f in "$state"/*.mnt "$state"/*.uts; do
      [ -e "$f" ] && umount "$f" 2>/dev/null || true
    done
    umount "$state" 2>/dev/null || true
    [ -f "$state/anchor.pid" ] && kill "$(cat "$state/anchor.pid")" 2>/dev/null || true
    rm -rf "$state"
  fi
  ip link del "$bridge" 2>/dev/null || true
  ip link del "$second_bridge" 2>/dev/null || true
  local link
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 |
                grep "^${prefix}[0-9]*[rs]$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
}

cmd_up() {
  local n=${1:-}
  local shared_identity=0
  [ "${2:-}" = "--shared-identity" ] && shared_identity=1
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "usage: multihost.sh up N [--shared-identity]"
  cmd_available
  cmd_down
  mkdir -p "$state"
  # Persistent mount namespaces are bind mounts, which must live on a
  # private mount.
  mount --bind "$state" "$state"
  mount --make-private "$state"
  setsid sleep infinity </dev/null >/dev/null 2>&1 &
  echo $! >"$state/anchor.pid"
  # The launchers' ssh: hydra takes a program, not a command line.
  printf '#!/bin/sh\nexec "%s" rsh "$@"\n' "$self" >"$state/rsh"
  chmod +x "$state/rsh"
  {
    echo "127.0.0.1 localhost"
    for ((i = 0; i < n; ++i)); do echo "$subnet.$((i + 1)) $prefix$i"; done
  } >"$state/hosts"
  ip link add "$bridge" type bridge
  ip link set "$bridge" up
  for ((i = 0; i < n; ++i)); do
    local host=$prefix$i
    local name=$host
    [ "$shared_identity" -eq 1 ] && name=$(hostname)
    ip netns add "$host"
    ip link add "${host}r" type veth peer name eth0 netns "$host"
    ip link set "${host}r" master "$bridge" up
    ip -n "$host" link set lo up
    ip -n "$host" addr add "$subnet.$((i + 1))/24" dev eth0
    ip -n "$host" link set eth0 up
    if [ "$shared_identity" -eq 1 ]; then
      cat /proc/sys/kernel/random/boot_id >"$state/$host.boot_id"
    else
      cat /proc/sys/kernel/random/uuid >"$state/$host.boot_id"
    fi
    touch "$state/$host.uts" "$state/$host.mnt"
    # sysfs is mounted again from inside the network namespace, so that
    # /sys/class/net (where UCX looks for devices) shows the host's links.
    nsenter --net="/run/netns/$host" unshare --uts="$state/$host.uts" \
      --mount="$state/$host.mnt" --propagation private sh -ec "
        hostname '$name'
        umount -l /sys
        mount -t sysfs sysfs /sys
        mount -t tmpfs -o size=512m,mode=1777 tmpfs /dev/shm
        mount --bind '$state/$host.boot_id' /proc/sys/kernel/random/boot_id
        mount --bind '$state/hosts' /etc/hosts"
  done
  echo "$n" >"$state/hosts.count"
  [ "$shared_identity" -eq 1 ] && echo shared-identity >"$state/identity"
  echo "multihost: $n hosts up (${prefix}0..$prefix$((n - 1)) on $subnet.0/24)"
}

# The launchers call this as their ssh: [options] HOST COMMAND...
cmd_rsh() {
  while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
  local host=${1:-}
  shift || true
  enter "$host" sh -c "$*"
}

# Builds the placement check with the MPI's compiler, once per MPI.
placement_program() {
  local mpi=$1
  local exe=$state/placement_check.$mpi
  if [ ! -x "$exe" ]; then
    "mpicc.$mpi" -O1 -o "$exe" "$root/tests/multihost/placement_check.c" >&2 ||
      die "cannot build the placement check with mpicc.$mpi"
  fi
  echo "$exe"
}

# Launches NP ranks of PROGRAM round-robin over the first N hosts, from
# mpnh0. No binding: the hosts share this machine's cores, and Open MPI
# would bind every host's first rank to core 0.
launch() {
  local n=$1
  local mpi=$2
  local np=$3
  shift 3
  local per_host=$(((np + n - 1) / n))
  local hosts=()
  for ((i = 0; i < n; ++i)); do hosts+=("$prefix$i"); done
  case $mpi in
    openmpi)
      local list
      list=$(printf "%s:$per_host," "${hosts[@]}")
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_rmaps_base_oversubscribe=1 \
        "$self" exec "${prefix}0" mpirun.openmpi -np "$np" --host "${list%,}" --map-by node \
        --bind-to none \
        --mca plm_rsh_agent "$state/rsh" --mca plm_rsh_no_tree_spawn 1 \
        --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 "$@"
      ;;
    mpich)
      local list
      list=$(printf "%s:1," "${hosts[@]}")
      "$self" exec "${prefix}0" mpiexec.mpich -launcher ssh -launcher-exec "$state/rsh" \
        -hosts "${list%,}" -n "$np" "$@"
      ;;
    *) die "unknown MPI $mpi (openmpi or mpich)" ;;
  esac
}

cmd_run() {
  local n
  n=$(host_count)
  if [ "${1:-}" = "--hosts" ]; then
    [ "${2:-0}" -ge 1 ] && [ "${2:-0}" -le "$n" ] || die "--hosts: 1 to $n hosts are up"
    n=$2
    shift 2
  fi
  [ $# -ge 3 ] || die "usage: multihost.sh run [--hosts K] openmpi|mpich NP PROGRAM [ARGS...]"
  local mpi=$1
  local np=$2
  shift 2
  local check
  check=$(placement_program "$mpi")
  local identity=
  [ -f "$state/identity" ] && identity=$(cat "$state/identity")
  if ! launch "$n" "$mpi" "$np" "$check" "$n" $identity >"$state/placement.log" 2>&1; then
    cat "$state/placement.log" >&2
    die "the ranks are not where the test bed put them"
  fi
  sed 's/^/multihost: /' "$state/placement.log" | grep "rank" >&2 || true
  launch "$n" "$mpi" "$np" "$@"
}

cmd_with() {
  local up_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do up_args+=("$1"); shift; done
  [ "${1:-}" = "--" ] && [ $# -ge 2 ] || die "usage: multihost.sh with N [--shared-identity] -- CMD..."
  shift
  trap cmd_down EXIT
  trap 'exit 143' TERM INT
  cmd_up "${up_args[@]}" >&2
  local rc=0
  "$@" || rc=$?
  return "$rc"
}

cmd_link() {
  local state_word=$1
  local host=${2:-}
  [ -n "$host" ] || die "usage: multihost.sh cut|mend HOST"
  ip link set "${host}r" "$state_word"
}

cmd_add_net() {
  local n
  n=$(host_count)
  ip link add "$second_bridge" type bridge
  ip link set "$second_bridge" up
  for ((i = 0; i < n; ++i)); do
    local host=$prefix$i
    ip link add "${host}s" type veth peer name eth1 netns "$host"
    ip link set "${host}s" master "$second_bridge" up
    ip -n "$host" addr add "$second_subnet.$((i + 1))/24" dev eth1
    ip -n "$host" link set eth1 up
  done
  echo "multihost: eth1 on $n hosts ($second_subnet.0/24)"
}

cmd_unroute() {
  local host=${1:-}
  [ -n "$host" ] || die "usage: multihost.sh unroute HOST"
  ip -n "$host" route del "$second_subnet.0/24" dev eth1
}

# After a job: nothing of it may stay on any host.
cmd_leftovers() {
  local n left files
  n=$(host_count)
  for ((i = 0; i < n; ++i)); do
    # The launcher's daemons may take a moment to go after it returns.
    for ((wait = 0; wait < 20; ++wait)); do
      left=$(ip netns pids "$prefix$i" 2>/dev/null | wc -l)
      [ "$left" -eq 0 ] && break
      sleep 0.5
    done
    [ "$left" -eq 0 ] || die "$left processes left on $prefix$i after 10 s"
    files=$("$self" exec "$prefix$i" sh -c 'ls /dev/shm | grep "^mpinotify" || true')
    [ -z "$files" ] || die "left in $prefix$i's /dev/shm: $files"
  done
  echo "multihost: nothing left on $n hosts"
}

case ${1:-} in
  up) shift; cmd_up "$@" ;;
  down) cmd_down ;;
  with) shift; cmd_with "$@" ;;
  exec) shift; enter "$@" ;;
  rsh) shift; cmd_rsh "$@" ;;
  run) shift; cmd_run "$@" ;;
  cut) cmd_link down "${2:-}" ;;
  mend) cmd_link up "${2:-}" ;;
  add-net) cmd_add_net ;;
  unroute) cmd_unroute "${2:-}" ;;
  leftovers) cmd_leftovers ;;
  available) cmd_available ;;
  *) sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
