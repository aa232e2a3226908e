#!/usr/bin/env bash
# Install what the hosted-bot sandbox needs (workers/SANDBOX.md) when it is missing:
# bubblewrap (namespaces), libseccomp2 (the seccomp filter), util-linux (prlimit, setpriv).
# Needs root and Debian's apt on a fresh machine; it never removes anything.
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v prlimit >/dev/null 2>&1 || missing+=(util-linux)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing+=(libseccomp2)

if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-sandbox: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-sandbox: need root and apt-get to install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null 2>&1
    apt-get install -y -q "${missing[@]}" >/dev/null
  }
fi
