#!/bin/sh
# Sets up (up) or removes (down) the network namespace in which one chaos worker runs for fault
# "partition": a veth pair between this host and the namespace on a private /30, nothing else (no NAT,
# no default route: the worker reaches only the database on the host side address).
#
#   sudo outbox-chaos/netns.sh up      # namespace outboxer-chaos, oxc-h 10.244.77.1/30 <-> oxc-n 10.244.77.2/30
#   sudo outbox-chaos/netns.sh down
#
# The database must listen on the host side address too, and let the namespace's address in; for a
# PostgreSQL cluster of your own (never the shared one), before starting it:
#   listen_addresses = '127.0.0.1,10.244.77.1'     (postgresql.conf)
#   host all all 10.244.77.0/30 trust               (pg_hba.conf)
# Override the names with NS, HOST_LINK, NS_LINK, HOST_ADDR, NS_ADDR.
set -eu
NS=${NS:-outboxer-chaos}
HOST_LINK=${HOST_LINK:-oxc-h}
NS_LINK=${NS_LINK:-oxc-n}
HOST_ADDR=${HOST_ADDR:-10.244.77.1}
NS_ADDR=${NS_ADDR:-10.244.77.2}
case "${1:-}" in
  up)
    ip netns add "$NS"
    ip link add "$HOST_LINK" type veth peer name "$NS_LINK"
    ip link set "$NS_LINK" netns "$NS"
    ip addr add "$HOST_ADDR/30" dev "$HOST_LINK"
    ip link set "$HOST_LINK" up
    ip netns exec "$NS" ip addr add "$NS_ADDR/30" dev "$NS_LINK"
    ip netns exec "$NS" ip link set "$NS_LINK" up
    ip netns exec "$NS" ip link set lo up
    echo "namespace $NS: $NS_ADDR on $NS_LINK, host $HOST_ADDR on $HOST_LINK"
    ;;
  down)
    ip link del "$HOST_LINK" 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
    ;;
  *)
    echo "usage: $0 up|down" >&2
    exit 2
    ;;
esac
