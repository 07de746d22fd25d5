package study

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
)

// num formats x with prec decimals; NaN (not applicable) is empty.
func num(x float64, prec int) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// csvBytes renders a header and rows as RFC 4180 CSV.
func csvBytes(header []string, rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	w.WriteAll(rows) // flushes; a bytes.Buffer never fails
	return b.Bytes()
}

// numAuto formats a mean: without decimals when it is a whole number, else
// with one.
func numAuto(x float64) string {
	if x == math.Trunc(x) {
		return num(x, 0)
	}
	return num(x, 1)
}
