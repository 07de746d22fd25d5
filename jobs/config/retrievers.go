package config

import "sort"

// The `retrievers:` section: name → retrievers.Spec, the neural and plugin
// retrievers evaluate.retrievers may name beside the lexical built-ins
// (SPEC §3 "Neural retrievers"; the fields are documented on
// retrievers.Spec and in docs/algorithms.md#neural-retrievers). For example:
//
//	retrievers:
//	  qwen3-emb-0.6b:
//	    kind: embedding
//	    base_url: http://127.0.0.1:8001/v1
//	    model: Qwen/Qwen3-Embedding-0.6B
//	    max_input: 6000
//	evaluate:
//	  retrievers: [bm25, qwen3-emb-0.6b]

func (c *Config) defaultsRetrievers() {
	for name, s := range c.Retrievers {
		c.Retrievers[name] = s.WithDefaults()
	}
}

func (c *Config) validateRetrievers(bad func(string, ...any)) {
	names := make([]string, 0, len(c.Retrievers))
	for name := range c.Retrievers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.Retrievers[name].Validate(name, bad)
	}
}

// RetrieverNames lists every retriever evaluate.retrievers may name: the
// lexical built-ins, then the configured ones, sorted.
func (c *Config) RetrieverNames() []string {
	out := append([]string(nil), LexicalRetrievers...)
	var conf []string
	for name := range c.Retrievers {
		conf = append(conf, name)
	}
	sort.Strings(conf)
	return append(out, conf...)
}
