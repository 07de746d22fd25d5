package retrievers

// Families of the quality–latency frontier (paper App. D.7): report draws
// one frontier per family and analyze charts them over time, so the
// families live with the specs they are read from.
const (
	FamilyBiEncoder    = "bi-encoder"
	FamilyCrossEncoder = "cross-encoder"
	FamilyOther        = "other"
)

// Families lists the frontier families, the values report.families takes.
var Families = []string{FamilyBiEncoder, FamilyCrossEncoder, FamilyOther}

// KindFamily is the frontier family of a configured retriever of kind
// kind: embedding is a bi-encoder; rerank, score and chat are
// cross-encoders (rerankers); plugins are other, on neither frontier.
func KindFamily(kind string) string {
	switch kind {
	case KindEmbedding:
		return FamilyBiEncoder
	case KindRerank, KindScore, KindChat:
		return FamilyCrossEncoder
	}
	return FamilyOther
}
