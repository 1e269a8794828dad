#!/usr/bin/env bash
# Install (or update) the dragon table companion on Raspberry Pi OS as services; see systemd/README.md.
#
#   sudo ./systemd/install.sh              install, or update after `git pull`: a new release next to the
#                                          running one, smoke-tested, then (the session log backed up) switched
#                                          to and restarted; one that does not start is rolled back, log too
#   sudo ./systemd/install.sh --uninstall  remove what the install added; keeps the data and a changed config
#   options: --no-apt (skip apt-get), --keep-releases N (default 3)
#
# Layout: /opt/dragon-table/releases/<id>/{venv,bin/companion-kiosk} with /opt/dragon-table/current
# pointing at the running one; /usr/local/bin/companion; /etc/dragon-table/companion.toml (written once,
# never overwritten); data in /var/lib/dragon-table (never removed); the system user 'companion'.
#
# Every outside command can be replaced (tests run the whole install in a temporary root):
#   ROOT=DIR  APT=apt-get  SYSTEMCTL=systemctl  PYTHON=python3  USERADD=useradd  USERDEL=userdel
#   USERMOD=usermod  GETENT=getent  CHOWN=chown  RASPI_CONFIG=raspi-config  MODEL_FILE=/proc/device-tree/model
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="${ROOT:-}"
APT="${APT:-apt-get}"
SYSTEMCTL="${SYSTEMCTL:-systemctl}"
PYTHON="${PYTHON:-python3}"
USERADD="${USERADD:-useradd}"
USERDEL="${USERDEL:-userdel}"
USERMOD="${USERMOD:-usermod}"
GETENT="${GETENT:-getent}"
CHOWN="${CHOWN:-chown}"
RASPI_CONFIG="${RASPI_CONFIG:-raspi-config}"
MODEL_FILE="${MODEL_FILE:-/proc/device-tree/model}"
STAGE=""  # the clean copy of the source a release is built from (stage_source), removed on exit

SERVICE_USER=companion
APP=/opt/dragon-table                      # paths as the running system sees them
DATA=/var/lib/dragon-table
CONFIG=/etc/dragon-table/companion.toml
UNITS=(companion.service companion-backup.service companion-backup.timer)
USER_UNIT=companion-kiosk.service
AUTOSTART=/etc/xdg/autostart/dragon-table-kiosk.desktop
# fonts-noto-color-emoji: a player named "Zoë 👑" shows the crown on the kiosk, not an empty box
APT_PACKAGES=(python3-venv python3-pip curl sqlite3 fonts-noto-color-emoji)
PI_PACKAGES=(python3-picamera2 python3-lgpio python3-numpy)

say() { echo "install: $*"; }
die() { echo "install: error: $*" >&2; exit 1; }

on_pi() { grep -qs 'Raspberry Pi' "$MODEL_FILE"; }

usage() { sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

install_packages() {
  export DEBIAN_FRONTEND=noninteractive
  "$APT" update -qq
  local packages=("${APT_PACKAGES[@]}")
  on_pi && packages+=("${PI_PACKAGES[@]}")
  # --no-upgrade: what is missing is installed, what is there stays as it is (an update of the companion
  # never upgrades Chromium, picamera2 or libcamera behind the table's back)
  "$APT" install -y -qq --no-upgrade "${packages[@]}"
  # Raspberry Pi OS names the browser chromium since 2025, chromium-browser before.
  "$APT" install -y -qq --no-upgrade chromium || "$APT" install -y -qq --no-upgrade chromium-browser
}

add_user() {
  if ! "$GETENT" passwd "$SERVICE_USER" >/dev/null; then
    "$USERADD" --system --user-group --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
      --comment "Dragon table companion" "$SERVICE_USER"
  fi
  local group
  for group in gpio video; do  # the GPIO chips and the camera; these groups exist on Raspberry Pi OS
    if "$GETENT" group "$group" >/dev/null; then "$USERMOD" -a -G "$group" "$SERVICE_USER"; fi
  done
}

git_src() { git -c safe.directory="$SRC" -C "$SRC" "$@"; }  # root may read a clone the desktop user owns

is_checkout() { [ -e "$SRC/.git" ] && command -v git >/dev/null && git_src rev-parse --verify -q HEAD >/dev/null; }

stage_source() {  # a clean copy of the source in STAGE, built from there: the clone is never written to
  STAGE="$(mktemp -d "${TMPDIR:-/tmp}/dragon-table-src.XXXXXX")" || return 1
  if is_checkout; then
    # the checked-out commit: nothing from an earlier build (build/, *.egg-info) or an uncommitted edit
    if [ -n "$(git_src --no-optional-locks status --porcelain --untracked-files=no)" ]; then
      say "uncommitted changes in $SRC are not installed: the release is commit $(git_src rev-parse --short HEAD)"
    fi
    git_src archive --format=tar HEAD | tar -x -C "$STAGE"
  else
    tar -C "$SRC" --exclude=./.git --exclude=./build --exclude='*.egg-info' --exclude=./.venv --exclude=./data \
      --exclude=__pycache__ -cf - . | tar -x -C "$STAGE"
  fi
}

make_release() {  # make_release DIR: a venv with the staged source installed, and the kiosk launcher
  local release="$1" constraints=()
  on_pi && constraints=(-c "$STAGE/systemd/pi-constraints.txt")
  # Called in an `||` list, where set -e does not apply: every step says itself when it fails.
  mkdir -p "$release/bin" || return 1
  "$PYTHON" -m venv --system-site-packages "$release/venv" || return 1
  "$release/venv/bin/python" -m pip install --quiet --disable-pip-version-check "${constraints[@]}" "$STAGE" \
    || return 1
  install -m 0755 "$STAGE/systemd/kiosk.sh" "$release/bin/companion-kiosk" || return 1
  install -m 0644 "$STAGE/README.md" "$release/README.md" || return 1
  install -m 0644 "$STAGE/systemd/README.md" "$release/README-pi.md"
}

write_files() {  # the folders, the settings (once), the data folder and the command
  install -d -m 0755 "$ROOT/etc/dragon-table" "$ROOT/etc/systemd/system" "$ROOT/etc/systemd/user" \
    "$ROOT/etc/xdg/autostart" "$ROOT/usr/local/bin"
  if [ ! -e "$ROOT$CONFIG" ]; then
    install -m 0644 "$STAGE/systemd/companion.toml" "$ROOT$CONFIG"
  fi
  install -d -m 0750 "$ROOT$DATA"
  "$CHOWN" -R "$SERVICE_USER:$SERVICE_USER" "$ROOT$DATA"
  ln -sfn "$APP/current/venv/bin/companion" "$ROOT/usr/local/bin/companion"
}

unit_files() {  # each unit and the autostart entry: its file in the staged source, where it is installed
  local unit
  for unit in "${UNITS[@]}"; do echo "$unit /etc/systemd/system/$unit"; done
  echo "$USER_UNIT /etc/systemd/user/$USER_UNIT"
  echo "dragon-table-kiosk.desktop $AUTOSTART"
}

install_units() {  # the new release's units, once it passed its smoke test; every installed one saved first
  local name target
  while read -r name target; do
    if [ -e "$ROOT$target" ]; then install -D -m 0644 "$ROOT$target" "$STAGE.units$target" || return 1; fi
  done < <(unit_files)
  while read -r name target; do
    install -m 0644 "$STAGE/systemd/$name" "$ROOT$target" || return 1
  done < <(unit_files)
}

restore_units() {  # the units as they were before install_units, for the previous release
  local name target
  while read -r name target; do
    if [ -e "$STAGE.units$target" ]; then install -m 0644 "$STAGE.units$target" "$ROOT$target"
    else rm -f "$ROOT$target"; fi
  done < <(unit_files)
}

installed_data() {  # the server's data folder: COMPANION_DATA as its unit sets it (a drop-in may move it), else DATA
  local env
  env=" $("$SYSTEMCTL" show --property=Environment --value companion.service 2>/dev/null || true) "
  if [[ "$env" =~ \ COMPANION_DATA=([^ ]+)\  ]]; then echo "${BASH_REMATCH[1]}"; else echo "$DATA"; fi
}

backups() {  # backups DATA: the names of the copies companion backup made in DATA/backups, sorted
  find "$1/backups" -maxdepth 1 -name 'companion-*.sqlite3' -printf '%f\n' 2>/dev/null | sort
}

back_up_log() {  # back_up_log DATA: a copy of the stopped server's log by the running release's backup service;
  # prints its path, or nothing when there is no log yet; fails when no copy was made. The new copy is the name
  # that was not there before (not the newest name: a Pi without a clock may have gone back in time)
  local data="$ROOT$1" before after
  [ -e "$data/companion.sqlite3" ] || return 0
  before="$(backups "$data")"
  "$SYSTEMCTL" start companion-backup.service || return 1
  after="$(comm -13 <(printf '%s\n' "$before") <(backups "$data") | tail -n 1)"
  [ -n "$after" ] || return 1
  echo "$data/backups/$after"
}

restore_log() {  # restore_log DATA COPY ID: the log as it was before release ID; the one ID left is kept aside
  local db="$ROOT$1/companion.sqlite3" aside="$ROOT$1/companion.sqlite3.left-by-$3" suffix
  for suffix in "" -wal -shm; do
    if [ -e "$db$suffix" ]; then mv "$db$suffix" "$aside$suffix"; fi
  done
  cp "$2" "$db.restoring" && "$CHOWN" "$SERVICE_USER:$SERVICE_USER" "$db.restoring" && chmod 0640 "$db.restoring" \
    && mv "$db.restoring" "$db" || return 1
  say "put back the session log from before the update (${2#"$ROOT"}); the one the new release left is" \
    "${aside#"$ROOT"}"
}

switch_to() {  # switch_to ID: point current at releases/ID in one rename
  ln -sfn "releases/$1" "$ROOT$APP/current.new"
  mv -T "$ROOT$APP/current.new" "$ROOT$APP/current"
}

prune_releases() {  # keep the newest N releases, always the current one
  local keep="$1" current old
  current="$(readlink "$ROOT$APP/current")"
  while read -r old; do
    [ "releases/$old" = "$current" ] || rm -rf "${ROOT:?}$APP/releases/$old"
  done < <(find "$ROOT$APP/releases" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -r | tail -n +"$((keep + 1))")
}

activate() {  # activate ID: release ID's units in place, current pointing at it, enabled and (re)started
  install_units && switch_to "$1" && "$SYSTEMCTL" daemon-reload \
    && "$SYSTEMCTL" enable companion.service companion-backup.timer \
    && "$SYSTEMCTL" --global enable "$USER_UNIT" && "$SYSTEMCTL" restart companion.service
}

do_install() {
  local keep="$1" apt="$2" id release previous="" data="" backup="" port screen
  [ -n "$ROOT" ] || [ "$(id -u)" -eq 0 ] || die "run it as root: sudo $0"
  [ "$apt" = yes ] && install_packages
  add_user
  trap '[ -z "$STAGE" ] || rm -rf "$STAGE" "$STAGE.units"' EXIT
  stage_source || die "could not copy $SRC to build from"
  write_files
  id="$(date +%Y%m%d-%H%M%S.%N)-$(is_checkout && git_src rev-parse --short HEAD || echo local)"
  release="$ROOT$APP/releases/$id"
  [ -L "$ROOT$APP/current" ] && previous="$(readlink "$ROOT$APP/current")"
  rm -rf "$release"
  say "building release $id"
  make_release "$release" || { rm -rf "$release"; die "the new release did not build; ${previous:-nothing} keeps running"; }
  if ! "$release/venv/bin/companion" doctor --quick --config "$ROOT$CONFIG" --data "$ROOT$DATA"; then
    rm -rf "$release"
    die "the new release failed its smoke test (above); ${previous:-nothing} keeps running"
  fi
  if [ -n "$previous" ]; then
    # The new release may upgrade the log's schema, which the previous one then refuses: keep a copy to go
    # back to, taken while the server is stopped so that nothing is written after it.
    data="$(installed_data)"
    "$SYSTEMCTL" stop companion.service || true
    if ! backup="$(back_up_log "$data")"; then
      "$SYSTEMCTL" start companion.service || true
      rm -rf "$release"
      die "could not back up the session log before the update (journalctl -u companion-backup -n 20);" \
        "$previous keeps running"
    fi
    [ -z "$backup" ] || say "backed up the session log to ${backup#"$ROOT"}"
  fi
  if ! activate "$id"; then
    if [ -n "$previous" ]; then
      say "the new release did not start: back to $previous"
      "$SYSTEMCTL" stop companion.service || true  # no automatic restart while the log is put back
      [ -z "$backup" ] || restore_log "$data" "$backup" "$id" || say "could not put back ${backup#"$ROOT"}"
      restore_units
      switch_to "${previous#releases/}"
      "$SYSTEMCTL" daemon-reload
      "$SYSTEMCTL" restart companion.service || true
    fi
    die "companion.service did not start; see: journalctl -u companion -n 20"
  fi
  "$SYSTEMCTL" start companion-backup.timer
  if command -v "$RASPI_CONFIG" >/dev/null; then
    "$RASPI_CONFIG" nonint do_blanking 1 || say "could not switch screen blanking off (raspi-config)"
  fi
  # raspi-config changes labwc's and wayfire's files only while that desktop runs: check what it left
  if ! screen="$("$ROOT$APP/current/venv/bin/companion" doctor --screen 2>&1)"; then
    say "the screen still blanks when idle, the kiosk with it; what to do:"
    printf '%s\n' "$screen" | sed 's/^/  /'
  fi
  prune_releases "$keep"
  port="$(COMPANION_CONFIG="$ROOT$CONFIG" "$ROOT$APP/current/bin/companion-kiosk" --port || echo 8080)"
  say "done: http://$(hostname -I 2>/dev/null | cut -d' ' -f1 || echo localhost):$port/" \
    "(log: journalctl -u companion -f)"
  say "the kiosk starts with the next desktop login (or now, as the desktop user: $APP/current/bin/companion-kiosk --session)"
}

do_uninstall() {
  [ -n "$ROOT" ] || [ "$(id -u)" -eq 0 ] || die "run it as root: sudo $0 --uninstall"
  "$SYSTEMCTL" disable --now companion.service companion-backup.timer || true
  "$SYSTEMCTL" --global disable "$USER_UNIT" || true
  local unit
  for unit in "${UNITS[@]}"; do rm -f "$ROOT/etc/systemd/system/$unit"; done
  rm -f "$ROOT/etc/systemd/user/$USER_UNIT" "$ROOT$AUTOSTART" "$ROOT/usr/local/bin/companion"
  rm -rf "${ROOT:?}$APP"
  if cmp -s "$SRC/systemd/companion.toml" "$ROOT$CONFIG"; then
    rm -f "$ROOT$CONFIG"
    rmdir "$ROOT/etc/dragon-table" 2>/dev/null || true
  elif [ -e "$ROOT$CONFIG" ]; then
    say "kept your changed settings in $CONFIG"
  fi
  "$SYSTEMCTL" daemon-reload
  if "$GETENT" passwd "$SERVICE_USER" >/dev/null; then "$USERDEL" "$SERVICE_USER" || true; fi
  say "removed; the data stays in $DATA (the apt packages stay too)"
}

main() {
  local action=install keep=3 apt=yes
  while [ $# -gt 0 ]; do
    case "$1" in
      --uninstall) action=uninstall ;;
      --no-apt) apt=no ;;
      --keep-releases) [ $# -ge 2 ] || die "--keep-releases needs a number from 1"; shift; keep="$1" ;;
      -h|--help) usage; exit 0 ;;
      *) usage >&2; die "unknown option $1" ;;
    esac
    shift
  done
  [[ "$keep" =~ ^[1-9][0-9]*$ ]] || die "--keep-releases needs a number from 1, got $keep"
  if [ "$action" = uninstall ]; then do_uninstall; else do_install "$keep" "$apt"; fi
}

main "$@"
