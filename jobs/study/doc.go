// Package study runs the two experiments beside the main line that check
// the judging design against a reference (SPEC §1 "Experiments beside the
// main line"):
//
//   - Rounds (paper App. D.2, Fig. 7): how close a Swiss tournament of R
//     rounds gets to the exhaustive ranking — Bradley–Terry on the Swiss
//     judgments of rounds 1..R against Bradley–Terry on all n(n−1)/2 — for
//     R = 1..30, beside random scheduling with as many comparisons. The
//     judgments come from queries judged exhaustively (every comparison a
//     schedule asks for is looked up in the record) or from a simulated judge
//     (latent scores, logistic noise; lib/swiss/swisssim).
//
//   - Agreement (paper App. D.4, Tables 5 and 6): how often the judge's
//     pairwise answers, the exhaustive ("full BT") ranking and the Swiss
//     ranking agree with human labels, with Wilson intervals and exact
//     binomial tests (lib/stats), inter-annotator agreement, and agreement
//     by rank difference.
//
// Each study returns a result value that renders its printed table, CSV,
// Markdown and figures (lib/chart); the CLI is `saber study`.
package study
