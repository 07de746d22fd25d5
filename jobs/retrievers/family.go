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
// kind (Kind.Family: embedding is a bi-encoder; rerank, score and chat are
// cross-encoders, rerankers; plugins are other, on neither frontier); an
// unknown kind is other.
func KindFamily(kind string) string {
	if k, ok := LookupKind(kind); ok {
		return k.Family
	}
	return FamilyOther
}
