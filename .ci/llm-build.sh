#!/usr/bin/env bash
# llm-build.sh - build llama.cpp's llama-server for the real-LLM-server tests
# (.ci/llm-start.sh) and keep the llama.cpp source beside it (its gguf-py
# writes the tiny models; models/ and models/templates/ give the vocabularies
# and chat templates).
#
# The source is the git bundle that the npm package node-llama-cpp ships
# (package/llama/gitRelease.bundle): no other download. The build is about
# 8.5 min on 2 cores (much longer under load), so the result is cached per
# machine in a directory named by the llama.cpp commit and reused by every
# later run; a fresh machine builds it once. Only the llama-server target is
# built, as a static, portable (GGML_NATIVE=OFF, AVX2) binary; the bundled web
# UI is not fetched (LLAMA_USE_PREBUILT_UI=OFF: CI is offline).
#
# The last line printed is the env file's path, which exports LLAMA_SERVER
# (the binary), LLAMA_CPP_SRC (the source tree) and LLAMA_PYTHON (a python3
# that has numpy, for gguf-py):
#
#   . "$(bash .ci/llm-build.sh | tail -n 1)"
#
#   SABER_TOOLS          cache root, default $HOME/.cache/saber-tools; the
#                        build goes under $SABER_TOOLS/llama-server-<commit>/
#   NODE_LLAMA_CPP       npm package, default node-llama-cpp@3.21.1
#   LLAMA_CPP_COMMIT     the commit the bundle's HEAD must be
#   LLAMA_BUILD_JOBS     parallel compile jobs, default nproc
set -euo pipefail
TOOLS=${SABER_TOOLS:-$HOME/.cache/saber-tools}
PKG=${NODE_LLAMA_CPP:-node-llama-cpp@3.21.1}
COMMIT=${LLAMA_CPP_COMMIT:-80fb11ac73e66d89eae2c6a91d8a77428fa733ed}
JOBS=${LLAMA_BUILD_JOBS:-$(nproc)}
DIR=$TOOLS/llama-server-${COMMIT:0:12}
T0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[llm-build %3d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Debian's python3 with numpy for gguf-py; cmake and ninja for the build.
# /usr/bin/python3 explicitly: a pyenv python earlier on PATH lacks Debian's numpy.
PY=/usr/bin/python3
need=()
[[ -x $PY ]] && $PY -c 'import numpy' 2>/dev/null || need+=(python3 python3-numpy)
if [[ ! -x $DIR/bin/llama-server ]]; then
  command -v cmake >/dev/null || need+=(cmake)
  command -v ninja >/dev/null || need+=(ninja-build)
  command -v g++ >/dev/null || need+=(g++)
  command -v git >/dev/null || need+=(git)
fi
if (( ${#need[@]} )); then
  log "installing ${need[*]} from apt"
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends "${need[@]}" >/dev/null
fi

# The marker is written only after a complete build: an interrupted one
# leaves a .tmp directory, never a half-built $DIR.
if [[ -f $DIR/.built && -x $DIR/bin/llama-server && -d $DIR/src/gguf-py ]]; then
  log "cached: $DIR"
else
  mkdir -p "$TOOLS"
  # An interrupted build's directory is left behind: remove those that no
  # running build holds (lsof-free check: a live ninja has its cwd there).
  for old in "$DIR".tmp.*; do
    [[ -d $old ]] || continue
    busy=0
    for p in /proc/[0-9]*/cwd; do [[ $(readlink "$p" 2>/dev/null) == "$old"* ]] && { busy=1; break; }; done
    (( busy )) || rm -rf "$old"
  done
  tmp=$(mktemp -d "$DIR.tmp.XXXXXX")
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  log "fetching $PKG with npm pack"
  (cd "$tmp" && npm pack --silent "$PKG" >/dev/null) || die "npm pack $PKG failed (registry unreachable?)"
  tar -xzf "$tmp"/node-llama-cpp-*.tgz -C "$tmp" package/llama/gitRelease.bundle ||
    die "$PKG has no package/llama/gitRelease.bundle"
  git -c advice.detachedHead=false clone -q "$tmp/package/llama/gitRelease.bundle" "$tmp/src" || die "git clone of the bundle failed"
  head=$(git -C "$tmp/src" rev-parse HEAD)
  [[ $head == "$COMMIT" ]] || die "bundle HEAD is $head, want $COMMIT (set LLAMA_CPP_COMMIT to accept it)"
  rm -rf "$tmp/package" "$tmp"/node-llama-cpp-*.tgz
  log "configuring llama.cpp ${COMMIT:0:12}"
  cmake -S "$tmp/src" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_APP=OFF >"$tmp/cmake.log" 2>&1 || die "cmake failed: $(tail -20 "$tmp/cmake.log")"
  log "building llama-server with $JOBS jobs (~8.5 min on 2 idle cores)"
  cmake --build "$tmp/build" --target llama-server -j "$JOBS" >"$tmp/build.log" 2>&1 ||
    die "build failed: $(tail -30 "$tmp/build.log")"
  mkdir -p "$tmp/bin"
  cp "$tmp/build/bin/llama-server" "$tmp/bin/"
  rm -rf "$tmp/build"   # 100s of MB of objects; the binary is static
  "$tmp/bin/llama-server" --version >&2 || die "built llama-server does not run"
  touch "$tmp/.built"
  rm -rf "$DIR"
  mv "$tmp" "$DIR"
  trap - EXIT
  log "built $DIR/bin/llama-server ($(du -h "$DIR/bin/llama-server" | cut -f1))"
fi

cat >"$DIR/env.sh.tmp" <<ENV
export LLAMA_SERVER=$DIR/bin/llama-server
export LLAMA_CPP_SRC=$DIR/src
export LLAMA_PYTHON=$PY
ENV
mv "$DIR/env.sh.tmp" "$DIR/env.sh"
echo "$DIR/env.sh"
