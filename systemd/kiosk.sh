#!/usr/bin/env bash
# Start Chromium full screen on the Pi's touchscreen, pointing at the local companion.
# Waits until the server answers, so the screen never shows a connection error at boot.
set -u
URL="${COMPANION_URL:-http://127.0.0.1:8080/}"
for _ in $(seq 1 60); do
  curl -fsS -o /dev/null "${URL}api/health" && break
  sleep 1
done
BROWSER="$(command -v chromium-browser || command -v chromium)"  # Raspberry Pi OS names it chromium-browser
exec "$BROWSER" --kiosk --noerrdialogs --disable-infobars --no-first-run --disable-session-crashed-bubble \
  --disable-translate --disable-pinch --overscroll-history-navigation=0 --check-for-update-interval=31536000 \
  --disable-background-networking --disable-component-update --disable-sync \
  --app="$URL"
