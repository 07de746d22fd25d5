#!/usr/bin/env bash
# llm-start.sh - start real OpenAI-compatible servers (llama.cpp's
# llama-server) on 127.0.0.1 for the end-to-end tests of the LLM stages and
# the neural retrievers, one server per role.
#
# llama-server comes from .ci/llm-build.sh (built once per machine, cached).
# The models are written, not downloaded (.ci/llm/write_models.py: real GGUF
# files with seeded random weights, cached beside the build by the script's
# hash). A random model says nothing parseable by itself, so most chat
# servers get a default grammar (.ci/llm/*.gbnf, --grammar-file) that forces
# the answer format of their stage; the tests say which server they use.
# Each server runs with one thread; all are healthy within seconds.
#
#   role          flags                                    for
#   chat          ChatML, no grammar                        yes/no reranker (log-probs), re-asks
#   tag           ChatML, tag.gbnf                          tag (labels of .ci/llm/ontology.json)
#   summarize     ChatML, summary.gbnf                      summarize
#   judge         ChatML, judge.gbnf                        judge
#   gptoss        gpt-oss template, judge-gptoss.gbnf       judge (reasoning_content)
#   audit         ChatML, audit.gbnf                        audit
#   number        ChatML, number.gbnf                       number reranker
#   keyed         ChatML, --api-key                         401 with a wrong key
#   embed         bert, --embeddings                        embedding retriever
#   rerank        bert + classifier, --reranking            rerank retriever
#
# The last line printed is the env file's path; it exports SABER_LLAMA_<ROLE>_URL
# (base URL ending in /v1) for every role, SABER_LLAMA_KEY (the keyed server's
# key, a local test value), SABER_LLAMA_SERVER (the binary), SABER_LLAMA_MODELS
# (the models' directory) and SABER_LLAMA_TEMPLATES (the chat templates):
#
#   . "$(bash .ci/llm-start.sh | tail -n 1)"
#
# Idempotent: servers already running are only re-checked.
#   SABER_CI_DIR    state root, default /tmp/saber-ci ($SABER_CI_DIR/llm: logs, pids, env.sh)
#   LLM_PORT_BASE   first port, default 7180 (one port per role, in the order above)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CI_DIR=${SABER_CI_DIR:-/tmp/saber-ci}
D=$CI_DIR/llm
BASE=${LLM_PORT_BASE:-7180}
KEY=ci-llama-key-0000
mkdir -p "$D"
T0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[llm-start %3d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# shellcheck disable=SC1090
. "$(bash "$HERE/llm-build.sh" | tail -n 1)"

# Models: by the writer's hash, so an edited writer writes new ones.
mh=$(cat "$HERE/llm/write_models.py" | sha256sum | cut -c1-12)
MODELS=$(dirname "$LLAMA_SERVER")/../models-$mh
if [[ ! -f $MODELS/.written ]]; then
  log "writing the tiny GGUF models into $MODELS"
  "$LLAMA_PYTHON" "$HERE/llm/write_models.py" "$LLAMA_CPP_SRC" "$MODELS"
  touch "$MODELS/.written"
fi
MODELS=$(cd "$MODELS" && pwd)
TEMPLATES=$LLAMA_CPP_SRC/models/templates
G=$HERE/llm

roles=(chat tag summarize judge gptoss audit number keyed embed rerank)
flags() {
  local chat=(-m "$MODELS/chat.gguf" --jinja)
  case $1 in
    chat) echo "${chat[@]}" ;;
    tag) echo "${chat[@]}" --grammar-file "$G/tag.gbnf" ;;
    summarize) echo "${chat[@]}" --grammar-file "$G/summary.gbnf" ;;
    judge) echo "${chat[@]}" --grammar-file "$G/judge.gbnf" ;;
    gptoss) echo -m "$MODELS/chat.gguf" --jinja --chat-template-file "$TEMPLATES/openai-gpt-oss-120b.jinja" --grammar-file "$G/judge-gptoss.gbnf" ;;
    audit) echo "${chat[@]}" --grammar-file "$G/audit.gbnf" ;;
    number) echo "${chat[@]}" --grammar-file "$G/number.gbnf" ;;
    keyed) echo "${chat[@]}" --api-key "$KEY" ;;
    embed) echo -m "$MODELS/embed.gguf" --embeddings ;;
    rerank) echo -m "$MODELS/rerank.gguf" --reranking ;;
  esac
}
running() {
  [[ -s $D/$1.pid ]] || return 1
  local pid; pid=$(cat "$D/$1.pid")
  [[ -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == llama-server* ]]
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
healthy() { curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$1/health"; }

i=0
declare -A port
for r in "${roles[@]}"; do
  port[$r]=$((BASE + i)); i=$((i + 1))
  running "$r" && continue
  port_open "${port[$r]}" && die "127.0.0.1:${port[$r]} already in use by another process (set LLM_PORT_BASE)"
  # shellcheck disable=SC2046
  setsid nohup "$LLAMA_SERVER" --host 127.0.0.1 --port "${port[$r]}" -t 1 -c 8192 -np 4 \
    $(flags "$r") >>"$D/$r.log" 2>&1 </dev/null &
  echo $! >"$D/$r.pid"
done
for r in "${roles[@]}"; do
  for _ in $(seq 600); do
    healthy "${port[$r]}" && break
    running "$r" || die "llama-server $r died: $(tail -5 "$D/$r.log")"
    sleep 0.1
  done
  healthy "${port[$r]}" || die "llama-server $r not healthy after 60s (log: $D/$r.log)"
done
log "${#roles[@]} servers healthy on 127.0.0.1:$BASE-$((BASE + ${#roles[@]} - 1))"

{
  for r in "${roles[@]}"; do
    echo "export SABER_LLAMA_${r^^}_URL=http://127.0.0.1:${port[$r]}/v1"
  done
  echo "export SABER_LLAMA_KEY=$KEY"
  echo "export SABER_LLAMA_SERVER=$LLAMA_SERVER"
  echo "export SABER_LLAMA_MODELS=$MODELS"
  echo "export SABER_LLAMA_TEMPLATES=$TEMPLATES"
  echo "export SABER_LLAMA_GRAMMARS=$G"
} >"$D/env.sh.tmp"
mv "$D/env.sh.tmp" "$D/env.sh"
echo "$D/env.sh"
