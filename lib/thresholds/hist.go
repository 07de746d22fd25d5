package thresholds

// HistBins is the number of similarity histogram bins, each 1/HistBins
// wide over [0, 1] (the last includes 1). The select report's histograms
// use them, and pairs counts them per query when it stores counts instead
// of pairs, so both must bin alike.
const HistBins = 20

// Bin is the histogram bin of similarity v, clamped to [0, HistBins).
func Bin(v float64) int { return min(HistBins-1, max(0, int(v*HistBins))) }
