#!/usr/bin/env bash
# Chromium full screen on the Pi's own screen, pointing at the local companion.
# Installed as /opt/dragon-table/current/bin/companion-kiosk.
#
#   companion-kiosk            wait for the compositor and the server's /api/health, keep the screen on,
#                              then run Chromium (the companion-kiosk user unit's ExecStart)
#   companion-kiosk --session  from the desktop session's autostart: hand the session's display to the
#                              systemd user manager and start the companion-kiosk user unit
#   companion-kiosk --port     print the server's port, as the kiosk reads it
#   companion-kiosk --url      print the address the kiosk opens
#
# Works under labwc (wayland-0), wayfire (wayland-1) and X11: the display comes from the session.
#
# The server's port and address are [server] port and host of /etc/dragon-table/companion.toml
# ($COMPANION_CONFIG): 8080 by default, and 127.0.0.1 while the server listens on every address (0.0.0.0, ::,
# unset); a server that listens on one address only is opened there. COMPANION_URL names another address
# altogether. Chromium runs on a profile of its own,
# ~/.local/state/dragon-table-kiosk ($XDG_STATE_HOME), never the desktop user's: a browser the user has open
# is left alone, and the kiosk's last exit is marked clean before each start, so that no "Restore pages?"
# follows a power cut.
set -u
CONFIG="${COMPANION_CONFIG:-/etc/dragon-table/companion.toml}"
PROFILE="${XDG_STATE_HOME:-$HOME/.local/state}/dragon-table-kiosk"
WAIT_S="${KIOSK_WAIT_S:-120}"
RUNTIME="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}"

say() { echo "companion-kiosk: $*" >&2; }

# config_server port|host: that key of [server] in the settings file, or nothing (no file, no such key, not a
# port, an address that means every address)
config_server() {
  python3 - "$CONFIG" "$1" 2>/dev/null <<'PY'
import sys
import tomllib

try:
    with open(sys.argv[1], "rb") as file:
        value = tomllib.load(file).get("server", {}).get(sys.argv[2])
except (OSError, ValueError, AttributeError):
    sys.exit(0)
if sys.argv[2] == "port" and type(value) is int and 1 <= value <= 65535:
    print(value)
if sys.argv[2] == "host" and isinstance(value, str) and value.strip().strip("[]") not in ("", "0.0.0.0", "::"):
    host = value.strip().strip("[]")
    print(f"[{host}]" if ":" in host else host)
PY
}

PORT="$(config_server port)"
HOST="$(config_server host)"
URL="${COMPANION_URL:-http://${HOST:-127.0.0.1}:${PORT:-8080}/}"

session() {
  # The user manager does not know the session's display until it is told.
  local vars=(WAYLAND_DISPLAY DISPLAY XAUTHORITY XDG_SESSION_TYPE XDG_CURRENT_DESKTOP)
  if command -v dbus-update-activation-environment >/dev/null; then
    dbus-update-activation-environment --systemd "${vars[@]}" 2>/dev/null || true
  fi
  if systemctl --user import-environment "${vars[@]}" 2>/dev/null \
     && systemctl --user start companion-kiosk.service; then
    exit 0
  fi
  say "no systemd user manager: running the kiosk directly"
  while true; do "$0"; sleep 3; done  # the same restart the user unit would give
}

display_ready() {
  if [ -n "${WAYLAND_DISPLAY:-}" ]; then
    [ -S "$RUNTIME/$WAYLAND_DISPLAY" ] && return 0
  else
    local sock
    for sock in "$RUNTIME"/wayland-[0-9]; do  # labwc: wayland-0, wayfire: wayland-1
      if [ -S "$sock" ]; then export WAYLAND_DISPLAY="${sock##*/}"; return 0; fi
    done
  fi
  if [ -n "${DISPLAY:-}" ]; then
    [ -S "/tmp/.X11-unix/X${DISPLAY#*:}" ] || [ -S "/tmp/.X11-unix/X${DISPLAY##*:}" ] && return 0
    command -v xset >/dev/null && xset q >/dev/null 2>&1 && return 0
  fi
  return 1
}

wait_until() {  # wait_until WHAT COMMAND...: poll once a second for WAIT_S seconds
  local what="$1" i
  shift
  for ((i = 0; i < WAIT_S; i++)); do
    "$@" && return 0
    sleep 1
  done
  say "no $what after ${WAIT_S} s; giving up (the unit starts me again)"
  return 1
}

mark_clean_exit() {  # the profile's last exit as a clean one (a power cut or a kill leaves it "Crashed")
  local prefs="$PROFILE/Default/Preferences"
  [ -f "$prefs" ] || return 0
  python3 - "$prefs" <<'PY' || say "could not mark the last exit clean in $prefs"
import json
import os
import sys

path = sys.argv[1]
try:
    with open(path, encoding="utf-8") as file:
        prefs = json.load(file)
except (OSError, ValueError):
    sys.exit(0)  # unreadable: Chromium starts the profile's preferences afresh
profile = prefs.get("profile") if isinstance(prefs, dict) else None
if not isinstance(profile, dict) or (profile.get("exit_type") == "Normal" and profile.get("exited_cleanly") is True):
    sys.exit(0)
profile.update(exit_type="Normal", exited_cleanly=True)
with open(path + ".kiosk", "w", encoding="utf-8") as file:
    json.dump(prefs, file)
    file.flush()
    os.fsync(file.fileno())
os.replace(path + ".kiosk", path)
PY
}

server_ready() { curl -fsS -o /dev/null --max-time 3 "${URL}api/health"; }

keep_screen_on() {
  # The screen must not blank in the middle of a game. X11: switch the screensaver and DPMS off here.
  # Wayland (labwc, wayfire): install.sh switches blanking off with raspi-config; wake a blanked output.
  if [ -z "${WAYLAND_DISPLAY:-}" ] && [ -n "${DISPLAY:-}" ] && command -v xset >/dev/null; then
    xset s off -dpms s noblank 2>/dev/null || true
  fi
  if [ -n "${WAYLAND_DISPLAY:-}" ] && command -v wlopm >/dev/null; then
    wlopm --on '*' 2>/dev/null || true
  fi
}

case "${1:-}" in
  "") ;;
  --session) session ;;
  --port) echo "${PORT:-8080}"; exit 0 ;;
  --url) echo "$URL"; exit 0 ;;
  -h|--help) sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) say "unknown option $1 (companion-kiosk [--session|--port|--url|--help])"; exit 2 ;;
esac

wait_until "compositor (no Wayland socket in $RUNTIME, no X display)" display_ready || exit 1
wait_until "answer from ${URL}api/health (is companion.service running? journalctl -u companion)" server_ready || exit 1
keep_screen_on

BROWSER="$(command -v chromium || command -v chromium-browser)" || { say "chromium is not installed"; exit 1; }
OZONE=()
[ -n "${WAYLAND_DISPLAY:-}" ] && OZONE=(--ozone-platform=wayland)
(umask 077 && mkdir -p "$PROFILE") || { say "cannot make the kiosk's profile folder $PROFILE"; exit 1; }
mark_clean_exit
exec "$BROWSER" "${OZONE[@]}" --user-data-dir="$PROFILE" --kiosk --noerrdialogs --disable-infobars --no-first-run \
  --disable-session-crashed-bubble --hide-crash-restore-bubble --disable-translate --disable-pinch --overscroll-history-navigation=0 \
  --check-for-update-interval=31536000 --disable-background-networking --disable-component-update \
  --disable-sync --password-store=basic --app="$URL"
