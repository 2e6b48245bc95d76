#!/bin/sh
# The two ordinary users of the site-log tests (test/mpi/site_log_test.cpp): mpimon-user
# (also test/cluster/slurm.sh's) and mpimon-user2, made once, idempotently, safe to race.
set -e
lock=/run/lock/mpimon-test-users.lock
(
  flock 9
  for user in mpimon-user mpimon-user2; do
    id -u "$user" >/dev/null 2>&1 ||
      useradd --create-home --user-group --shell /bin/sh --comment "mpimon test jobs (test/mpi/site_users.sh)" "$user"
  done
) 9>"$lock"
for user in mpimon-user mpimon-user2; do
  id -u "$user" >/dev/null 2>&1 || { echo "site_users.sh: could not create the user $user" >&2; exit 1; }
done
