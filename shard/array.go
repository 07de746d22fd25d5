package shard

// DefaultMaxArraySize is Slurm's default MaxArraySize: what a plan assumes
// when it cannot ask the cluster (a dry run, a forecast).
const DefaultMaxArraySize = 1001

// Chunk is one Slurm array job of a stage's shards: shard indices within
// [Offset, Offset+maxArray), submitted as task ids Index − Offset with
// SABER_SHARD_OFFSET=Offset, which FromEnv adds back.
type Chunk struct {
	Offset  int
	Indices []int // shard indices
}

// Chunks splits sorted shard indices so that every array task id
// (index − offset) stays below maxArray, as Slurm requires; offsets are
// multiples of maxArray, so a shard's chunk depends only on its index.
// maxArray must be positive.
func Chunks(indices []int, maxArray int) []Chunk {
	var out []Chunk
	for _, i := range indices {
		off := (i / maxArray) * maxArray
		if len(out) == 0 || out[len(out)-1].Offset != off {
			out = append(out, Chunk{Offset: off})
		}
		out[len(out)-1].Indices = append(out[len(out)-1].Indices, i)
	}
	return out
}
