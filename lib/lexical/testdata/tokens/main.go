// Command tokens tokenises texts for the Python scripts beside it, which
// cannot run our tokenisers: each line of standard input is a JSON string,
// and the matching line of standard output is the JSON array of its
// tokens by the tokeniser named in the argument (plain, sklearn or math).
//
//	go run ./testdata/tokens math <texts.jsonl >tokens.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/saber-math/saber/lib/text"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tokens plain|sklearn|math <texts.jsonl >tokens.jsonl")
		os.Exit(2)
	}
	tok, err := text.Lookup(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<26)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for line := 1; in.Scan(); line++ {
		var s string
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			fmt.Fprintf(os.Stderr, "tokens: line %d: %v\n", line, err)
			os.Exit(1)
		}
		toks := text.Tokens(tok, s)
		if toks == nil {
			toks = []string{}
		}
		if err := enc.Encode(toks); err != nil {
			fmt.Fprintf(os.Stderr, "tokens: %v\n", err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "tokens: %v\n", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "tokens: %v\n", err)
		os.Exit(1)
	}
}
