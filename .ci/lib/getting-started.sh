# shellcheck shell=bash disable=SC2034 # sourced: its variables are the callers'
# The parts of the getting-started checks that do not depend on the page or the server, sourced by
# .ci/getting-started (Open Liberty), .ci/getting-started-wildfly (WildFly),
# .ci/getting-started-java-se (Java SE and the test kit) and .ci/getting-started-quarkus (Quarkus). Each check takes one
# manual page literally, as a new user would: it installs Outboxer with the page's set-up command
# into a local Maven repository that holds no Outboxer artifacts, writes a new project from the
# page's tagged snippets only, and runs the page's tagged commands.
#
# Tags on the page, each on its own line right before a fenced block:
#   <!-- file: PATH -->     the block is the project's file PATH (relative, inside the project)
#   <!-- run: NAME -->      the block holds commands the check runs (install, schema, ...)
#
# The caller sets, before sourcing:
#   ROOT       the repository root
#   README     the page (GETTING_STARTED_README overrides it in the callers: to test a check itself)
#   CHECK      the check's name, in its log lines ("getting-started")
#   TITLE      the page's title, in PASS and FAIL ("Quick start")
#   DATABASE   the check's own PostgreSQL database (dropped at the end)
#   PASS_WHAT  what PASS says the page did ("builds, deploys and relays an event")
# and defines stop_server, which cleanup calls when SERVER_PID is set. It must end with
# `PASSED=true` after its last step: anything else is a failure.
#
# Sets: VERSION (this checkout's), WORK, M2 (the fresh repository), APP (the project), LOGS,
# STARTED_AT, STEP (the page's step running now, named in a failure), SERVER_PID, DATABASE_CREATED.

# The version this checkout builds, which the set-up command installs: the first <version> of the
# root POM (it has no parent).
VERSION=$(awk '/<version>/ { sub(".*<version>", ""); sub("<.*", ""); print; exit }' "$ROOT/pom.xml")
SEED_REPOSITORY=${GETTING_STARTED_SEED_REPOSITORY:-$HOME/.m2/repository}

# One install for several checks (.ci/run): GETTING_STARTED_REPOSITORY=DIR installs into DIR and
# keeps it; GETTING_STARTED_INSTALLED_REPOSITORY=DIR reuses what an earlier check installed there,
# only if this page's set-up command is the same as the Liberty page's (install_outboxer).
INSTALLED_REPOSITORY=${GETTING_STARTED_INSTALLED_REPOSITORY:-}
KEPT_REPOSITORY=${GETTING_STARTED_REPOSITORY:-$INSTALLED_REPOSITORY}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/outboxer-$CHECK.XXXXXX")
M2=${KEPT_REPOSITORY:-$WORK/m2}    # the fresh local Maven repository
APP=$WORK/orders                   # the new project
LOGS=$WORK/logs
mkdir -p "$LOGS" "$APP"

STARTED_AT=$(date +%s)
STEP="(preparing)"
SERVER_PID=""
DATABASE_CREATED=false
PASSED=false

log() { printf '[%s %3ss] %s\n' "$CHECK" "$(( $(date +%s) - STARTED_AT ))" "$*"; }

fail() { # <message> [log file]
  echo
  local page=${CURRENT_README:-$README}   # a check of two pages names the one it is on
  echo "FAIL: $TITLE (${page#"$ROOT"/}), step \"$STEP\": $1"
  if [ -n "${2:-}" ] && [ -s "$2" ]; then
    echo "---- last lines of $2"
    tail -n 40 "$2"
    echo "----"
  fi
  exit 1
}

psql_admin() { PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 -qtAc "$1"; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

cleanup() {
  local status=$?
  set +e
  if [ -n "$SERVER_PID" ]; then
    stop_server
  fi
  if $DATABASE_CREATED; then
    psql_admin "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" >/dev/null 2>&1
  fi
  [ -n "$KEPT_REPOSITORY" ] || rm -rf "$M2"   # a kept repository belongs to the caller
  if $PASSED && [ "${KEEP:-false}" != true ]; then
    rm -rf "$WORK"
  else
    echo "Project and logs kept in $WORK"
  fi
  if $PASSED; then
    echo "PASS: the $TITLE (${README#"$ROOT"/}) $PASS_WHAT ($(( $(date +%s) - STARTED_AT ))s)"
  else
    echo "FAIL (exit status $status, $(( $(date +%s) - STARTED_AT ))s)"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Maven as the page's commands call it, but on the fresh repository, batch mode, no progress.
mvn() { command mvn -B -ntp -Dmaven.repo.local="$M2" "$@"; }
export -f mvn
export M2

# The fenced block right after the line "<!-- TAG -->" in the page, or in another page (tag e.g.
# "run: install").
readme_block() { # <tag> [page]
  awk -v tag="<!-- $1 -->" '
    found == 0 && $0 == tag { found = 1; next }
    found == 1 { if ($0 ~ /^```/) { found = 2; next } else { exit 1 } }
    found == 2 { if ($0 ~ /^```$/) exit 0; print }
    END { if (found != 2) exit 1 }' "${2:-$README}"
}

# Before you start: the page exists, PostgreSQL answers, and every dev.outboxer dependency the page
# shows (its outbox-bom import among them) names the version this checkout installs; so does every
# one README.md shows. Sets PREPARED_TRANSACTIONS (PostgreSQL's max_prepared_transactions).
check_page_and_versions() {
  [ -f "$README" ] || fail "no $README"
  pg_isready -h 127.0.0.1 -p 5432 -q || fail "PostgreSQL is not running on 127.0.0.1:5432"
  local stale_versions
  PREPARED_TRANSACTIONS=$(psql_admin "SHOW max_prepared_transactions") || fail "cannot connect to PostgreSQL as postgres"
  stale_versions=$(awk -v version="$VERSION" '
    /<groupId>dev\.outboxer<\/groupId>/ { artifact = ""; window = 3; next }
    window > 0 && /<artifactId>/ { artifact = $0; sub(".*<artifactId>", "", artifact); sub("<.*", "", artifact) }
    window > 0 && /<version>/ { found = $0; sub(".*<version>", "", found); sub("<.*", "", found)
      if (found != version && found !~ /^\$\{/) printf "%s line %d: %s %s; ", FILENAME, FNR, artifact, found; window = 0; next }
    { window-- }' "$README" "$ROOT/README.md")
  [ -z "$stale_versions" ] || fail "the documentation shows Outboxer versions other than $VERSION, the version of this checkout (pom.xml): ${stale_versions}update them"
}

# Seeds the fresh repository from the seed one without dev/outboxer (third-party artifacts need no
# download), then runs the page's <!-- run: install --> commands from the repository root.
install_outboxer() {
  if [ -n "$INSTALLED_REPOSITORY" ]; then
    local liberty_page=$ROOT/docs/getting-started/open-liberty.md
    [ "$(readme_block "run: install")" = "$(readme_block "run: install" "$liberty_page")" ] \
      || fail "GETTING_STARTED_INSTALLED_REPOSITORY is set, but this page's set-up command differs from ${liberty_page#"$ROOT"/}'s: run without it"
    [ -f "$M2/dev/outboxer/outbox-bom/$VERSION/outbox-bom-$VERSION.pom" ] \
      || fail "GETTING_STARTED_INSTALLED_REPOSITORY=$M2 holds no dev.outboxer:outbox-bom:$VERSION"
    log "Reusing $M2, where the same set-up command installed Outboxer $VERSION"
    return
  fi
  log "Seeding a local Maven repository without Outboxer from $SEED_REPOSITORY"
  mkdir -p "$M2"
  if [ -d "$SEED_REPOSITORY" ]; then
    cp -a "$SEED_REPOSITORY/." "$M2/"
    rm -rf "$M2/dev/outboxer"
  fi
  local install_commands
  install_commands=$(readme_block "run: install") || fail "no <!-- run: install --> block in $README"
  log "Installing Outboxer: $install_commands"
  (cd "$ROOT" && bash -euo pipefail -c "$install_commands") >"$LOGS/install.log" 2>&1 \
    || fail "the set-up command failed" "$LOGS/install.log"
  [ -f "$M2/dev/outboxer/outbox-bom/$VERSION/outbox-bom-$VERSION.pom" ] \
    || fail "the set-up command installed no dev.outboxer:outbox-bom:$VERSION, which the page's pom.xml imports" "$LOGS/install.log"
}

# Writes every <!-- file: PATH --> block of the page into the project; then checks the given
# files are among them.
write_project_files() { # [required file...]
  local file
  write_files "$README" "$APP"
  log "Wrote $WRITTEN files from $README into $APP"
  for file in "$@"; do
    [ -s "$APP/$file" ] || fail "$README has no $file"
  done
}

# Writes every <!-- file: PATH --> block of a page under a directory; sets WRITTEN to how many.
# (Not for $(...): a failure in a subshell would lose its message.)
write_files() { # <page> <directory>
  local files file
  files=$(grep -E '^<!-- file: [^ ]+ -->$' "$1" | sed -E 's/^<!-- file: ([^ ]+) -->$/\1/') || true
  [ -n "$files" ] || fail "no <!-- file: PATH --> blocks in $1"
  for file in $files; do
    case "$file" in /*|*..*) fail "file path $file leaves the project directory" ;; esac
    mkdir -p "$2/$(dirname "$file")"
    readme_block "file: $file" "$1" >"$2/$file" || fail "the block after <!-- file: $file --> is not a fenced code block"
  done
  WRITTEN=$(echo "$files" | wc -l)
}

# The page's <!-- run: schema --> commands, pointed at $DATABASE instead of the page's "orders":
# exactly the two places that name the database ("createdb ... orders" and one "-d orders"), and
# refusing to guess if the commands changed shape. Sets OWN_SCHEMA_COMMANDS.
own_schema_commands() {
  local schema_commands
  schema_commands=$(readme_block "run: schema") || fail "no <!-- run: schema --> block in $README"
  OWN_SCHEMA_COMMANDS=$(printf '%s\n' "$schema_commands" \
    | sed -E "s/^(createdb .*) orders$/\1 $DATABASE/; s/ -d orders / -d $DATABASE /g")
  [ "$(grep -c "$DATABASE" <<<"$OWN_SCHEMA_COMMANDS")" -eq 2 ] \
    && ! grep -qE '^createdb .* orders$| -d orders ' <<<"$OWN_SCHEMA_COMMANDS" \
    || fail "cannot point the commands at the database $DATABASE (expected 'createdb ... orders' and one '-d orders'); adjust $CHECK to the page"
}

# Runs the page's schema commands (own_schema_commands) in the project: they build it and create
# the schema in $DATABASE, which cleanup drops. The build must have made the given artifact.
build_and_create_schema() { # [artifact, relative to the project; target/orders.war]
  local artifact=${1:-target/orders.war}
  own_schema_commands
  psql_admin "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" >/dev/null
  DATABASE_CREATED=true
  log "Building the project and creating the schema"
  (cd "$APP" && bash -euo pipefail -c "$OWN_SCHEMA_COMMANDS") >"$LOGS/schema.log" 2>&1 \
    || fail "the build or the schema commands failed" "$LOGS/schema.log"
  [ -f "$APP/$artifact" ] || fail "the build made no $artifact" "$LOGS/schema.log"
}
