#!/usr/bin/env bash
# Install what the browser tests (tests/web/test_browser.py) need when it is missing:
# Debian's chromium and its chromedriver (the WebDriver the selenium client drives).
# Needs root and Debian's apt on a fresh machine; it never removes anything.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)

if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-browser: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-browser: need root and apt-get to install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null 2>&1
    apt-get install -y -q "${missing[@]}" >/dev/null
  }
fi
