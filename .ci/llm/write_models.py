"""Write the tiny GGUF models of the real-LLM-server tests (.ci/llm-start.sh).

No trained weights can be had on CI machines, so the models are written:
real GGUF files with seeded random weights, which llama-server loads and runs
through its whole inference path (quality is noise; the protocol is real).
The tokenizer keys are copied from llama.cpp's vocabulary-only files in
models/. Deterministic for a seed; a few seconds.

  chat.gguf    llama architecture, 2 layers, n_embd 64, the Llama
               SentencePiece vocabulary, a ChatML chat template. The output
               layer is biased towards " yes" and " no" (a constant first
               hidden dimension, large output weights for those two rows),
               so that a yes/no reranker finds both among the top log-probs
               and gets scores that vary with the input; free text is what a
               grammar makes of it.
  embed.gguf   bert, 2 layers, n_embd 64, the BGE WordPiece vocabulary, mean
               pooling: /v1/embeddings.
  rerank.gguf  the same bert with a classification head (cls, cls.output)
               and rank pooling: /v1/rerank.

usage: python3 write_models.py LLAMA_CPP_SRC OUT_DIR
"""
import os
import sys

src, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "gguf-py"))
import numpy as np  # noqa: E402
import gguf  # noqa: E402

N_EMBD, N_LAYER, N_HEAD, N_FF, N_CTX = 64, 2, 4, 128, 2048
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def copy_tokenizer(w, vocab_file):
    """Copy every tokenizer.* key of a vocabulary-only GGUF file; return the tokens."""
    r = gguf.GGUFReader(vocab_file)
    tokens = None
    for name, f in r.fields.items():
        if not name.startswith("tokenizer."):
            continue
        if name == "tokenizer.chat_template":
            continue
        vt = f.types[0]
        val = f.contents()
        if vt == gguf.GGUFValueType.ARRAY:
            w.add_key_value(name, val, vt, sub_type=f.types[-1])
        else:
            w.add_key_value(name, val, vt)
        if name == "tokenizer.ggml.tokens":
            tokens = val
    return tokens


def rnd(rng, *shape, scale=0.02):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def chat(path, seed):
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(path, "llama")
    tokens = copy_tokenizer(w, os.path.join(src, "models", "ggml-vocab-llama-spm.gguf"))
    n_vocab = len(tokens)
    w.add_chat_template(CHATML)
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(n_vocab)
    emb = rnd(rng, n_vocab, N_EMBD, scale=1.0)
    emb[:, 0] = 8.0  # a constant first hidden dimension: the bias below acts on it
    w.add_tensor("token_embd.weight", emb)
    for i in range(N_LAYER):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(N_EMBD, np.float32))
        for t in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(p + t + ".weight", rnd(rng, N_EMBD, N_EMBD))
        w.add_tensor(p + "ffn_norm.weight", np.ones(N_EMBD, np.float32))
        w.add_tensor(p + "ffn_gate.weight", rnd(rng, N_FF, N_EMBD))
        w.add_tensor(p + "ffn_up.weight", rnd(rng, N_FF, N_EMBD))
        w.add_tensor(p + "ffn_down.weight", rnd(rng, N_EMBD, N_FF))
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, np.float32))
    outw = rnd(rng, n_vocab, N_EMBD, scale=0.5)
    outw[:, 0] = 0.0
    for t in ("\u2581yes", "\u2581no"):
        outw[tokens.index(t), 0] = 3.0  # logit ≈ 3 × the normed first dimension (1.5 left them out of the top 20 for some prompts)
    w.add_tensor("output.weight", outw)
    finish(w)


def bert(path, seed, rerank):
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(path, "bert")
    tokens = copy_tokenizer(w, os.path.join(src, "models", "ggml-vocab-bert-bge.gguf"))
    n_vocab = len(tokens)
    w.add_context_length(512)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_layer_norm_eps(1e-12)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.RANK if rerank else gguf.PoolingType.MEAN)
    w.add_tensor("token_embd.weight", rnd(rng, n_vocab, N_EMBD, scale=1.0))
    w.add_tensor("token_types.weight", rnd(rng, 2, N_EMBD))
    w.add_tensor("position_embd.weight", rnd(rng, 512, N_EMBD))
    w.add_tensor("token_embd_norm.weight", np.ones(N_EMBD, np.float32))
    w.add_tensor("token_embd_norm.bias", np.zeros(N_EMBD, np.float32))
    for i in range(N_LAYER):
        p = f"blk.{i}."
        for t in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(p + t + ".weight", rnd(rng, N_EMBD, N_EMBD, scale=0.1))
            w.add_tensor(p + t + ".bias", np.zeros(N_EMBD, np.float32))
        w.add_tensor(p + "attn_output_norm.weight", np.ones(N_EMBD, np.float32))
        w.add_tensor(p + "attn_output_norm.bias", np.zeros(N_EMBD, np.float32))
        w.add_tensor(p + "ffn_up.weight", rnd(rng, N_FF, N_EMBD, scale=0.1))
        w.add_tensor(p + "ffn_up.bias", np.zeros(N_FF, np.float32))
        w.add_tensor(p + "ffn_down.weight", rnd(rng, N_EMBD, N_FF, scale=0.1))
        w.add_tensor(p + "ffn_down.bias", np.zeros(N_EMBD, np.float32))
        w.add_tensor(p + "layer_output_norm.weight", np.ones(N_EMBD, np.float32))
        w.add_tensor(p + "layer_output_norm.bias", np.zeros(N_EMBD, np.float32))
    if rerank:
        w.add_tensor("cls.weight", rnd(rng, N_EMBD, N_EMBD, scale=0.3))
        w.add_tensor("cls.bias", np.zeros(N_EMBD, np.float32))
        w.add_tensor("cls.output.weight", rnd(rng, 1, N_EMBD, scale=0.3))
        w.add_tensor("cls.output.bias", np.zeros(1, np.float32))
    finish(w)


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


os.makedirs(out, exist_ok=True)
for name, fn in (("chat", lambda p: chat(p, 1)), ("embed", lambda p: bert(p, 2, False)), ("rerank", lambda p: bert(p, 3, True))):
    tmp = os.path.join(out, name + ".gguf.tmp")
    fn(tmp)
    os.replace(tmp, os.path.join(out, name + ".gguf"))
    print(f"wrote {name}.gguf ({os.path.getsize(os.path.join(out, name + '.gguf')) >> 20} MiB)", file=sys.stderr)
