#!/bin/sh
# Run by compose's one-shot "secrets" service before anything else: makes every password of the
# compose deployment on first start, random, and hands each consumer only the ones it needs, in a
# volume of its own, readable only by the user that consumer runs as. Later starts keep them.
#
#   /out/postgres  the database owner's password (PostgreSQL's image, uid 999)
#   /out/migrate   the owner's and every service role's password (the migrate one-shot)
#   /out/<service> that service's role password, and the ZooKeeper digest password (the trigger
#                  also the api role's, for the control plane it serves)
set -eu
umask 077

CARILLON_UID=10001
POSTGRES_UID=999

# value NAME: the secret kept in the migrate volume (the one that holds them all), made on first use
value() {
  if [ ! -s "/out/migrate/$1" ]; then
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "/out/migrate/$1"
  fi
  cat "/out/migrate/$1"
}

# put NAME UID DIR...: copy the secret into each consumer's volume, owned by that consumer
put() {
  name=$1
  uid=$2
  shift 2
  secret=$(value "$name")
  for dir in "$@"; do
    printf '%s' "$secret" > "$dir/$name"
    chown "$uid" "$dir/$name"
    chmod 0400 "$dir/$name"
  done
}

put db_owner_password "$CARILLON_UID" /out/migrate
put db_owner_password "$POSTGRES_UID" /out/postgres
for role in trigger worker retry api readonly; do
  put "db_${role}_password" "$CARILLON_UID" /out/migrate
done
put db_trigger_password "$CARILLON_UID" /out/trigger
put db_api_password "$CARILLON_UID" /out/trigger
put db_worker_password "$CARILLON_UID" /out/worker
put db_retry_password "$CARILLON_UID" /out/retry
put zk_digest_password "$CARILLON_UID" /out/trigger /out/retry
echo "secrets ready"
