package corpusdist

// baseWords are the head of the general vocabulary, most common first: words
// of method and object that real core-idea summaries are made of, then a few
// small numbers (which real summaries carry: "2", "1" and "3" are the three
// most frequent summary tokens of MATH as summarised offline). Stop words
// (summtok.IsStopWord) and repeats are dropped when the vocabulary is built.
var baseWords = []string{
	"sum", "square", "product", "equal", "factor", "formula", "side", "sides", "total", "triangle",
	"area", "length", "point", "line", "circle", "form", "positive", "possible", "ways", "roots",
	"substitute", "substitution", "simplify", "multiply", "divide", "add", "subtract", "count", "case", "cases",
	"rewrite", "express", "combine", "cancel", "expand", "isolate", "evaluate", "relate", "compare", "bound",
	"angle", "angles", "radius", "diameter", "height", "base", "perimeter", "volume", "distance", "slope",
	"coefficient", "coefficients", "variable", "variables", "function", "functions", "polynomial", "degree", "root", "zeros",
	"prime", "primes", "divisor", "divisors", "multiple", "multiples", "remainder", "modulo", "digit", "digits",
	"probability", "outcomes", "favorable", "choose", "arrangements", "order", "distinct", "pairs", "subsets", "elements",
	"sequence", "series", "ratio", "difference", "common", "arithmetic", "geometric", "terms", "nth", "general",
	"inequality", "maximum", "minimum", "largest", "smallest", "greatest", "least", "bounds", "estimate", "range",
	"symmetry", "symmetric", "parity", "even", "odd", "integral", "derivative", "limit", "rate", "change",
	"vector", "vectors", "matrix", "determinant", "dot", "cross", "projection", "linear", "system", "solve",
	"quadratic", "discriminant", "vertex", "axis", "parabola", "graph", "intercept", "intercepts", "coordinates", "plane",
	"similar", "congruent", "parallel", "perpendicular", "bisector", "midpoint", "chord", "tangent", "arc", "sector",
	"pythagorean", "theorem", "law", "identity", "identities", "sine", "cosine", "trig", "trigonometric", "complex",
	"modulus", "argument", "conjugate", "exponent", "exponents", "power", "powers", "logarithm", "logarithms", "base10",
	"fraction", "fractions", "numerator", "denominator", "decimal", "percent", "proportion", "unit", "units", "convert",
	"conversion", "rectangle", "square", "polygon", "interior", "exterior", "diagonal", "diagonals", "regular", "hexagon",
	"cube", "sphere", "cylinder", "cone", "prism", "pyramid", "surface", "faces", "edges", "vertices",
	"complement", "complementary", "inclusion", "exclusion", "overcount", "permutation", "permutations", "combination", "combinations", "binomial",
	"factorial", "pigeonhole", "recursion", "recurrence", "induction", "invariant", "extremal", "casework", "bijection", "generating",
	"gcd", "lcm", "euclidean", "algorithm", "congruence", "residue", "residues", "units", "totient", "fermat",
	"mod", "cycle", "period", "periodic", "pattern", "repeat", "telescoping", "partial", "decomposition", "shift",
	"completing", "vieta", "amgm", "cauchy", "schwarz", "jensen", "convex", "concave", "monotonic", "increasing",
	"decreasing", "continuous", "domain", "inverse", "composition", "compose", "evaluate", "plug", "table", "list",
	"enumerate", "check", "verify", "test", "guess", "bash", "direct", "directly", "equivalent", "condition",
	"constraint", "constraints", "independent", "events", "expected", "linearity", "weighted", "average", "mean", "median",
	"mode", "data", "frequency", "consecutive", "first", "nth", "last", "ones", "tens", "place",
	"base", "representation", "binary", "convert", "carry", "borrow", "column", "row", "grid", "lattice",
	"path", "paths", "steps", "moves", "coloring", "colors", "tiling", "tiles", "board", "chessboard",
	"shoelace", "heron", "stewart", "ptolemy", "menelaus", "ceva", "incircle", "circumcircle", "inscribed", "circumscribed",
	"radius", "inradius", "circumradius", "altitude", "median", "centroid", "orthocenter", "incenter", "reflection", "rotation",
	"translation", "dilation", "scale", "factor", "homothety", "coordinate", "bash", "origin", "quadrant", "circle",
	"ellipse", "hyperbola", "focus", "foci", "directrix", "asymptote", "asymptotes", "eccentricity", "conic", "transform",
	"2", "1", "3", "4", "5", "0", "6", "10", "8", "12",
	"pi", "sqrt", "radical", "radicals", "rationalize", "rational", "irrational", "whole", "natural", "negative",
	"zero", "nonzero", "nonnegative", "absolute", "floor", "ceiling", "round", "nearest", "approximate", "exact",
	"speed", "time", "work", "rates", "mixture", "interest", "compound", "growth", "decay", "profit",
	"cost", "price", "discount", "age", "ages", "money", "coins", "dice", "die", "cards",
	"deck", "balls", "urn", "committee", "people", "seats", "round", "table", "handshakes", "teams",
	"split", "pair", "group", "groups", "partition", "partitions", "stars", "bars", "balls", "boxes",
	"double", "half", "twice", "triple", "reciprocal", "reciprocals", "opposite", "adjacent", "hypotenuse", "legs",
	"special", "30", "60", "90", "45", "degrees", "radians", "unit", "circle", "quadrantal",
	"amplitude", "phase", "frequency", "wave", "polar", "rectangular", "parametric", "curve", "curves", "region",
	"bounded", "enclosed", "under", "between", "intersection", "intersect", "intersections", "union", "overlap", "disjoint",
}

// funcWords are the words a core idea is glued with. All are stop words
// (summtok removes them), so they only set the length of the text.
var funcWords = []string{
	"the", "of", "to", "and", "a", "by", "then", "using", "use", "apply", "with", "that", "is", "for", "in",
	"on", "each", "so", "it", "as", "which", "from", "into", "this", "are", "be", "solve", "compute", "find",
	"set", "let", "equation", "value", "values", "number", "numbers", "term", "terms", "an", "its", "their",
	"all", "both", "two", "one", "three", "after", "before", "every", "other", "over", "at", "or", "not",
	"integer", "integers", "expression", "result", "determine", "obtain", "give", "show", "get", "than",
}
