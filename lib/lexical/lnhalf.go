package lexical

import (
	"math"
	"math/big"
	"sync"
)

// BM25's idf is ln(N − df + 0.5) − ln(df + 0.5), and rank_bm25 takes both
// logarithms with Python's math.log, i.e. the C library's log, which on
// glibc is correctly rounded. Go's math.Log is not (it is off by one ulp for
// 14 of the 400 values ln(k + 0.5), k < 400), so BM25 uses lnHalf instead:
// ln(k + 0.5) correctly rounded, computed once per k in extended precision
// and cached. With it our BM25 scores are bit-identical to rank_bm25's
// (TestGolden), so ties and near-ties order the same way.

var lnHalfCache struct {
	sync.Mutex
	v []float64 // v[k] = ln(k + 0.5), 0 when not computed yet (it is never 0)
}

// lnHalfInto sets out[k] = ln(k + 0.5), correctly rounded, for every k in
// ks, taking the global lock once.
func lnHalfInto(out []float64, ks []int32) {
	c := &lnHalfCache
	c.Lock()
	defer c.Unlock()
	for _, k := range ks {
		if int(k) >= len(c.v) {
			c.v = append(c.v, make([]float64, int(k)+1-len(c.v))...)
		}
		if c.v[k] == 0 {
			c.v[k] = lnExact(float64(k) + 0.5)
		}
		out[k] = c.v[k]
	}
}

const lnPrec = 192 // bits; the float64 result is then correctly rounded

var ln2Big = func() *big.Float {
	// ln 2 = 2·atanh(1/3)
	third := new(big.Float).SetPrec(lnPrec).Quo(big.NewFloat(1).SetPrec(lnPrec), big.NewFloat(3))
	return atanhBig(third)
}()

// lnExact returns ln(x) for a finite x > 0, correctly rounded to float64:
// x = m·2^e with m in [1, 2), ln x = e·ln 2 + 2·atanh((m − 1)/(m + 1)),
// summed with 192-bit precision.
func lnExact(x float64) float64 {
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	m := new(big.Float).SetPrec(lnPrec).SetFloat64(frac * 2)
	e := exp - 1
	one := big.NewFloat(1).SetPrec(lnPrec)
	num := new(big.Float).SetPrec(lnPrec).Sub(m, one)
	den := new(big.Float).SetPrec(lnPrec).Add(m, one)
	r := atanhBig(num.Quo(num, den))
	t := new(big.Float).SetPrec(lnPrec).SetInt64(int64(e))
	t.Mul(t, ln2Big)
	r.Add(r, t)
	f, _ := r.Float64()
	return f
}

// atanhBig returns 2·atanh(z) = 2·Σ z^(2i+1)/(2i+1) for 0 ≤ z ≤ 1/3.
func atanhBig(z *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(lnPrec).Set(z)
	z2 := new(big.Float).SetPrec(lnPrec).Mul(z, z)
	pow := new(big.Float).SetPrec(lnPrec).Set(z)
	term := new(big.Float).SetPrec(lnPrec)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -lnPrec-8)
	for i := int64(3); ; i += 2 {
		pow.Mul(pow, z2)
		term.Quo(pow, new(big.Float).SetInt64(i))
		if term.Sign() == 0 || term.Cmp(eps) < 0 {
			break
		}
		sum.Add(sum, term)
	}
	return sum.Mul(sum, big.NewFloat(2))
}
