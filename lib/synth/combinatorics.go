package synth

import (
	"sort"
	"strings"
)

var combinatoricsTemplates = []template{
	{"committee-selection", []string{"Combinatorics/Counting/Combinations"}, genCommittee},
	{"word-arrangements", []string{"Combinatorics/Permutations/Permutations with Repetition"}, genWordArrangements},
	{"pigeonhole", []string{"Combinatorics/Pigeonhole Principle/Generalized Pigeonhole Principle"}, genPigeonhole},
	{"inclusion-exclusion-survey", []string{"Combinatorics/Inclusion-Exclusion/Venn Diagrams"}, genIESurvey},
	{"inclusion-exclusion-divisibility", []string{"Combinatorics/Inclusion-Exclusion/Counting Multiples", "Number Theory/Divisibility/Multiples"}, genIEDivisible},
	{"dice-probability", []string{"Combinatorics/Probability/Dice"}, genDice},
	{"coin-probability", []string{"Combinatorics/Probability/Binomial Distribution", "Combinatorics/Counting/Combinations"}, genCoins},
	{"stars-and-bars", []string{"Combinatorics/Counting/Stars and Bars"}, genStarsBars},
	{"circular-arrangements", []string{"Combinatorics/Permutations/Circular Permutations"}, genCircular},
	{"grid-paths", []string{"Combinatorics/Counting/Lattice Paths"}, genGridPaths},
	{"divisor-conditions", []string{"Combinatorics/Counting/Multiplication Principle", "Number Theory/Divisors/Divisor Function"}, genDivisorConditions},
	{"derangements", []string{"Combinatorics/Permutations/Derangements", "Combinatorics/Inclusion-Exclusion/Derangements"}, genDerangements},
}

func binomTeX(n, k int64) string { return sprintf("\\binom{%d}{%d}", n, k) }

func genCommittee(g *gen) (string, string, string) {
	nm := g.name()
	group := g.pick("club", "class", "team", "choir", "chess club", "student council")
	switch g.intn(4) {
	case 0:
		n := g.n64(6, 30)
		k := g.n64(2, min(8, n-2))
		v := binom(n, k)
		var st string
		switch g.intn(4) {
		case 0:
			st = g.spinf("A %s [[led by %s|that %s belongs to|at %s's school]] has $%d$ members. In how many ways can a [[committee|subcommittee|working group]] of $%d$ members be [[chosen|formed|selected]]?", group, nm, n, k)
		case 1:
			st = g.spinf("%s owns $%d$ different %s and wants to take $%d$ of them on a [[trip|vacation|camping weekend]]. How many different [[selections|choices|sets]] are possible?", nm, n, g.pick("books", "board games", "shirts", "puzzles", "novels", "hats"), k)
		case 2:
			st = g.spinf("A pizzeria [[near %s's home|that %s likes|on %s's street]] offers $%d$ different toppings. How many pizzas with exactly $%d$ different toppings can be [[ordered|made]]?", nm, n, k)
		default:
			st = g.spinf("From a group of $%d$ volunteers [[coordinated by %s|recruited by %s]], $%d$ are to be selected to %s. If the order of selection does not matter, how many [[choices|selections]] are there?", n, nm, k, g.pick("plant trees", "staff the front desk", "clean the park", "lead a workshop"))
		}
		w := sprintf("Order does not matter, so the count is $%s = \\frac{%d!}{%d!\\,%d!} = %d$.", binomTeX(n, k), n, k, n-k, v)
		return st, w, itoa(v)
	case 1:
		m, f := g.n64(4, 15), g.n64(4, 15)
		a, b := g.n64(1, min(4, m)), g.n64(1, min(4, f))
		v := binom(m, a) * binom(f, b)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A %s [[at %s's school|coached by %s]] has $%d$ boys and $%d$ girls. In how many ways can a [[delegation|team]] of $%d$ boys and $%d$ girls be [[formed|chosen]]?", group, nm, m, f, a, b)
		case 1:
			st = sprintf("%s must choose $%d$ of $%d$ novels and $%d$ of $%d$ poetry books for a reading list. How many reading lists are possible?", nm, a, m, b, f)
		default:
			st = g.spinf("A [[committee|school board panel]] [[chaired by %s|organized by %s]] consists of $%d$ teachers chosen from $%d$ and $%d$ parents chosen from $%d$. How many different [[committees|panels]] can be formed?", nm, a, m, b, f)
		}
		w := sprintf("The two choices are independent: $%s = %d$ and $%s = %d$. By the multiplication principle the count is $%d \\cdot %d = %d$.",
			binomTeX(m, a), binom(m, a), binomTeX(f, b), binom(f, b), binom(m, a), binom(f, b), v)
		return st, w, itoa(v)
	case 2:
		n := g.n64(7, 25)
		k := g.n64(3, min(7, n-2))
		v := binom(n-1, k-1)
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("A %s of $%d$ members, including %s, must choose a committee of $%d$. How many committees include %s?", group, n, nm, k, nm)
		case 1:
			st = sprintf("%s is one of $%d$ players, and a team of $%d$ is to be picked. In how many ways can the team be picked if %s must be on it?", nm, n, k, nm)
		default:
			st = sprintf("In how many ways can $%d$ people be chosen from $%d$ if one particular person, %s, has to be among them?", k, n, nm)
		}
		w := sprintf("Put %s on the committee; the remaining $%d$ members are chosen from the other $%d$ people, in $%s = %d$ ways.", nm, k-1, n-1, binomTeX(n-1, k-1), v)
		return st, w, itoa(v)
	default:
		m, f := g.n64(5, 14), g.n64(3, 12)
		k := g.n64(2, min(6, m))
		tot, none := binom(m+f, k), binom(m, k)
		v := tot - none
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A %s [[at %s's school|coached by %s]] has $%d$ boys and $%d$ girls. How many [[committees|teams]] of $%d$ members contain at least one girl?", group, nm, m, f, k)
		case 1:
			st = sprintf("A box holds $%d$ %s and $%d$ %s. In how many ways can %s choose $%d$ of them so that at least one is %s?", m, "plain cookies", f, "chocolate cookies", nm, k, "a chocolate cookie")
		default:
			st = g.spinf("From $%d$ juniors and $%d$ seniors, $%d$ students are chosen [[at random%.0s|by %s]] for a survey. How many possible groups include at least one senior?", m, f, k, nm)
		}
		w := sprintf("Count the complement. There are $%s = %d$ selections in total and $%s = %d$ that avoid the second group entirely, so $%d - %d = %d$ selections contain at least one member of it.",
			binomTeX(m+f, k), tot, binomTeX(m, k), none, tot, none, v)
		return st, w, itoa(v)
	}
}

var arrangeWords = []string{"BANANA", "MISSISSIPPI", "STATISTICS", "COMMITTEE", "BOOKKEEPER", "ARRANGEMENT",
	"PEPPER", "LETTERS", "SUCCESS", "ASSESSMENT", "TENNESSEE", "PARALLEL", "BALLOON", "COLLEGE", "REFERENCE",
	"INFINITY", "ALGEBRA", "GEOMETRY", "CALCULUS", "PROBABILITY", "MATHEMATICS", "ABRACADABRA", "HIPPOPOTAMUS",
	"CARAVAN", "ELEVEN", "CANNON", "SETTEE", "APPLE", "COFFEE", "PIZZAZZ", "DIFFERENCE", "ADDRESS", "BUBBLE",
	"PUZZLE", "GIGGLE", "KANGAROO", "SASSAFRAS", "EXCELLENCE", "COOKBOOK", "ASSASSIN", "TATTOO", "GRAMMAR",
	"MAMMAL", "HAPPINESS", "NONSENSE", "SEVENTEEN", "REMEMBER", "CHEESE", "BEETLE", "SUMMIT", "RABBIT",
	"CLASSES", "DOODLE", "LOLLIPOP", "MOON", "PEPPERONI", "ERROR", "VILLA"}

// letterCounts returns the letters of w with their multiplicities, most
// frequent first (ties alphabetical).
func letterCounts(w string) ([]byte, []int) {
	cnt := map[byte]int{}
	for k := 0; k < len(w); k++ {
		cnt[w[k]]++
	}
	ls := make([]byte, 0, len(cnt))
	for l := range cnt {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool {
		if cnt[ls[i]] != cnt[ls[j]] {
			return cnt[ls[i]] > cnt[ls[j]]
		}
		return ls[i] < ls[j]
	})
	cs := make([]int, len(ls))
	for k, l := range ls {
		cs[k] = cnt[l]
	}
	return ls, cs
}

// multinomialWork explains n!/Π c! for the given letter counts.
func multinomialWork(ls []byte, cs []int) (string, int64) {
	n := 0
	den := int64(1)
	facts := []string{}
	descr := []string{}
	for k, c := range cs {
		n += c
		den *= factorials[c]
		if c > 1 {
			facts = append(facts, sprintf("%d!", c))
			descr = append(descr, sprintf("%c appears %s times", ls[k], numberWords[c]))
		}
	}
	v := factorials[n] / den
	if len(facts) == 0 {
		return sprintf("all $%d$ letters are different, so there are $%d! = %d$ arrangements", n, n, v), v
	}
	return sprintf("there are $%d$ letters, where %s, so the number of distinct arrangements is $\\frac{%d!}{%s} = %d$",
		n, joinAnd(descr), n, strings.Join(facts, "\\,"), v), v
}

func genWordArrangements(g *gen) (string, string, string) {
	w := arrangeWords[g.intn(len(arrangeWords))]
	ls, cs := letterCounts(w)
	nm := g.name()
	obj := g.pick("letter tiles", "cards", "fridge magnets", "wooden blocks")
	if g.chance(0.5) {
		var st string
		switch g.intn(4) {
		case 0:
			st = g.spinf("How many distinct arrangements of the letters in the word %s [[are there%.0s|can %s write down|can be made%.0s]]?", w, nm)
		case 1:
			st = g.spinf("In how many different ways can the letters of [[the word|]] %s be arranged [[in a row%.0s|in a line%.0s|by %s]]?", w, nm)
		case 2:
			st = g.spinf("%s has %s spelling %s. How many different [[strings|words, meaningful or not,|sequences]] can be formed using all of [[them%.0s|the %s]]?", nm, obj, w, obj)
		default:
			st = g.spinf("[[Find|What is]] the number of distinguishable permutations of the letters of the word %s [[written on %s's board|on %s's card]].", w, nm)
		}
		txt, v := multinomialWork(ls, cs)
		return st, "In " + w + " " + txt + ".", itoa(v)
	}
	// fixed first or last letter
	li := g.intn(len(ls))
	L := ls[li]
	first := g.chance(0.5)
	pos, posw := "begin", "first"
	if !first {
		pos, posw = "end", "last"
	}
	var st string
	switch g.intn(3) {
	case 0:
		st = g.spinf("How many distinct arrangements of the letters of %s %s with the letter %c[[?%.0s|, as %s asks?]]", w, pos, L, nm)
	case 1:
		st = sprintf("%s rearranges %s spelling %s. In how many of the distinct arrangements is the %s letter %c?", nm, obj, w, posw, L)
	default:
		st = g.spinf("[[Consider%.0s|%s lists]] all distinguishable orderings of the letters in the word %s. How many of them %s with %c?", nm, w, pos, L)
	}
	cs2 := append([]int(nil), cs...)
	cs2[li]--
	txt, v := multinomialWork(ls, cs2)
	wk := sprintf("Place %c in the %s position. The remaining letters can be arranged freely: %s.", L, posw, txt)
	return st, wk, itoa(v)
}

var colors = []string{"red", "blue", "green", "black", "white", "yellow", "purple", "orange"}

func genPigeonhole(g *gen) (string, string, string) {
	nm := g.name()
	switch g.intn(4) {
	case 0, 1:
		k := g.n(3, 4)
		idx := g.r.Perm(len(colors))[:k]
		cnt := make([]int64, k)
		desc := make([]string, k)
		for t := range cnt {
			cnt[t] = g.n64(2, 15)
		}
		maxc := int64(0)
		for _, c := range cnt {
			maxc = max(maxc, c)
		}
		need := g.n64(2, min(6, maxc))
		items := g.pick("socks", "marbles", "gumballs", "pens", "beads")
		for t := range cnt {
			desc[t] = sprintf("$%d$ %s", cnt[t], colors[idx[t]])
		}
		var st string
		if g.chance(0.5) {
			switch g.intn(3) {
			case 0:
				st = sprintf("A drawer contains %s %s. %s takes %s out one at a time without looking. What is the minimum number that must be taken to guarantee at least $%d$ %s of the same color?", joinAnd(desc), items, nm, items, need, items)
			case 1:
				st = g.spinf("A bag [[belonging to %s|on %s's desk]] holds %s %s. How many %s must be drawn [[blindly|at random]] to be certain of getting $%d$ of one color?", nm, joinAnd(desc), items, items, need)
			default:
				st = sprintf("In the dark, %s pulls %s from a box containing %s %s. What is the smallest number that guarantees $%d$ %s of a single color?", nm, items, joinAnd(desc), items, need, items)
			}
			sum := int64(0)
			parts := []string{}
			for _, c := range cnt {
				v := min(c, need-1)
				sum += v
				parts = append(parts, itoa(v))
			}
			w := sprintf("In the worst case we draw as many as possible without reaching $%d$ of any color: at most $%d$ of each color, but never more than that color contains. That is $%s = %d$ %s. One more draw then forces $%d$ of some color, so the answer is $%d + 1 = %d$.",
				need, need-1, strings.Join(parts, " + "), sum, items, need, sum, sum+1)
			return st, w, itoa(sum + 1)
		}
		// guarantee `need` of one specific color
		t := g.intn(k)
		for cnt[t] < need {
			t = (t + 1) % k
		}
		color := colors[idx[t]]
		switch g.intn(3) {
		case 0:
			st = g.spinf("A drawer [[in %s's room|in %s's desk]] contains %s %s. What is the minimum number of %s that must be drawn without looking to be sure of getting at least $%d$ %s ones?", nm, joinAnd(desc), items, items, need, color)
		case 1:
			st = sprintf("%s has a bag of %s %s and draws without looking. How many draws guarantee at least $%d$ %s %s?", nm, joinAnd(desc), items, need, color, items)
		default:
			st = g.spinf("A jar [[on %s's shelf|in %s's kitchen]] holds %s %s. How many %s must be removed at random to ensure that $%d$ of them are %s?", nm, joinAnd(desc), items, items, need, color)
		}
		others := int64(0)
		for u, c := range cnt {
			if u != t {
				others += c
			}
		}
		one := "ones"
		if need == 2 {
			one = "one"
		}
		w := sprintf("In the worst case all $%d$ %s of the other colors come out first, followed by $%d$ %s %s. The next draw must be %s, so the answer is $%d + %d + 1 = %d$.",
			others, items, need-1, color, one, color, others, need-1, others+need)
		return st, w, itoa(others + need)
	case 2:
		k := g.n64(2, 12)
		bins, unit, same, birth := int64(12), "month", "were born in the same month", "birth month"
		if g.chance(0.4) {
			bins, unit, same, birth = 7, "day of the week", "were born on the same day of the week", "birth weekday"
		}
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("What is the smallest number of %s that must be in [[a room%.0s|a hall%.0s|%s's class]] to guarantee that at least $%d$ of them %s?", g.pick("people", "students", "guests", "athletes"), nm, k, same)
		case 1:
			st = g.spinf("For the %s [[being organized|planned]] by %s, the goal is that at least $%d$ %s share a %s. What is the least number of %s that guarantees this?", g.pick("party", "reunion", "conference", "picnic"), nm, k, "guests", birth, "guests")
		default:
			st = g.spinf("How many students must %s [[enroll|admit]] to be [[certain|sure]] that $%d$ of them %s[[?%.0s|, as %s claims?]]", g.pick("a school", "a college", "a summer camp", "a university"), k, same, nm)
		}
		w := sprintf("There are $%d$ possible values of the %s. With $%d \\cdot %d = %d$ people it is possible that each value occurs exactly $%d$ times, so that many do not suffice. With one more person, the pigeonhole principle forces some value to occur $%d$ times. The answer is $%d$.",
			bins, unit, bins, k-1, bins*(k-1), k-1, k, bins*(k-1)+1)
		return st, w, itoa(bins*(k-1) + 1)
	default:
		N := g.n64(13, 500)
		bins, same, birth := int64(12), "were born in the same month", "birth month"
		if g.chance(0.4) {
			bins, same, birth = 7, "were born on the same day of the week", "birth weekday"
		}
		v := ceilDiv(N, bins)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A [[school|college|camp]] [[attended by %s|where %s works]] has $%d$ students. What is the largest number $k$ such that we can be sure at least $k$ students %s?", nm, N, same)
		case 1:
			st = sprintf("At a %s there are $%d$ people. %s claims that at least $k$ of them share a %s. What is the largest $k$ for which this is guaranteed?", g.pick("concert", "festival", "stadium event"), N, nm, birth)
		default:
			st = g.spinf("Among any $%d$ [[people|guests|passengers]], at least how many must share the same %s[[?%.0s|, according to %s?]]", N, birth, nm)
		}
		w := sprintf("If every one of the $%d$ possible values occurred at most $%d$ times, there would be at most $%d$ people, fewer than $%d$. So some value occurs at least $\\left\\lceil \\frac{%d}{%d} \\right\\rceil = %d$ times, and an even distribution shows more cannot be guaranteed.",
			bins, v-1, bins*(v-1), N, N, bins, v)
		return st, w, itoa(v)
	}
}

type ieContext struct {
	whole, members string
	sets           [3]string // verb phrases: "study French"
}

var ieContexts = []ieContext{
	{"class", "students", [3]string{"study French", "study Spanish", "study German"}},
	{"sports club", "members", [3]string{"play soccer", "play basketball", "play tennis"}},
	{"survey", "people", [3]string{"own a dog", "own a cat", "own a bird"}},
	{"cafe", "customers", [3]string{"ordered coffee", "ordered tea", "ordered juice"}},
	{"summer camp", "campers", [3]string{"signed up for swimming", "signed up for archery", "signed up for drama"}},
	{"library", "readers", [3]string{"borrowed a novel", "borrowed a comic", "borrowed a magazine"}},
}

func genIESurvey(g *gen) (string, string, string) {
	c := ieContexts[g.intn(len(ieContexts))]
	if g.chance(0.6) {
		oa, ob, both, none := g.n64(2, 40), g.n64(2, 40), g.n64(1, 25), g.n64(0, 30)
		A, B := oa+both, ob+both
		N := A + B - both + none
		var st, w, ans string
		switch g.intn(3) {
		case 0:
			st = sprintf("In a %s of $%d$ %s, $%d$ %s, $%d$ %s, and $%d$ do both. How many of the %s do neither?", c.whole, N, c.members, A, c.sets[0], B, c.sets[1], both, c.members)
			w = sprintf("By inclusion-exclusion, the number who do at least one is $%d + %d - %d = %d$. So $%d - %d = %d$ do neither.", A, B, both, A+B-both, N, A+B-both, none)
			ans = itoa(none)
		case 1:
			st = sprintf("Of the $%d$ %s in a %s, $%d$ %s and $%d$ %s, while $%d$ do neither. How many %s do both?", N, c.members, c.whole, A, c.sets[0], B, c.sets[1], none, c.members)
			w = sprintf("Exactly $%d - %d = %d$ %s do at least one. By inclusion-exclusion, $|A \\cup B| = |A| + |B| - |A \\cap B|$, so $|A \\cap B| = %d + %d - %d = %d$.", N, none, N-none, c.members, A, B, N-none, both)
			ans = itoa(both)
		default:
			st = sprintf("%s surveyed the $%d$ %s of a %s: $%d$ %s, $%d$ %s, and $%d$ do both. How many %s do exactly one of the two?", g.name(), N, c.members, c.whole, A, c.sets[0], B, c.sets[1], both, c.members)
			w = sprintf("Only the first: $%d - %d = %d$. Only the second: $%d - %d = %d$. Exactly one: $%d + %d = %d$.", A, both, oa, B, both, ob, oa, ob, oa+ob)
			ans = itoa(oa + ob)
		}
		return st, w, ans
	}
	// three sets: region sizes
	r := make([]int64, 7) // a, b, c, ab, ac, bc, abc (exclusive regions)
	for k := range r {
		r[k] = g.n64(1, 15)
	}
	none := g.n64(0, 20)
	A := r[0] + r[3] + r[4] + r[6]
	B := r[1] + r[3] + r[5] + r[6]
	C := r[2] + r[4] + r[5] + r[6]
	AB, AC, BC, ABC := r[3]+r[6], r[4]+r[6], r[5]+r[6], r[6]
	U := A + B + C - AB - AC - BC + ABC
	N := U + none
	var st string
	switch g.intn(3) {
	case 0:
		st = sprintf("In a %s of $%d$ %s, $%d$ %s, $%d$ %s and $%d$ %s. Exactly $%d$ do the first two, $%d$ the first and third, $%d$ the second and third, and $%d$ do all three. How many do none of the three?",
			c.whole, N, c.members, A, c.sets[0], B, c.sets[1], C, c.sets[2], AB, AC, BC, ABC)
	case 1:
		st = sprintf("Among $%d$ %s of a %s, $%d$ %s, $%d$ %s, $%d$ %s; $%d$ belong to both of the first two groups, $%d$ to both the first and the third, $%d$ to both the second and the third, and $%d$ to all three. Find the number belonging to none of the groups.",
			N, c.members, c.whole, A, c.sets[0], B, c.sets[1], C, c.sets[2], AB, AC, BC, ABC)
	default:
		st = sprintf("%s collected data on $%d$ %s: $%d$ %s, $%d$ %s and $%d$ %s, with overlaps of $%d$ (first and second), $%d$ (first and third), $%d$ (second and third) and $%d$ (all three). How many %s are in none of these groups?",
			g.name(), N, c.members, A, c.sets[0], B, c.sets[1], C, c.sets[2], AB, AC, BC, ABC, c.members)
	}
	w := sprintf("By inclusion-exclusion, the number in at least one group is $%d + %d + %d - %d - %d - %d + %d = %d$. The number in none is $%d - %d = %d$.",
		A, B, C, AB, AC, BC, ABC, U, N, U, none)
	return st, w, itoa(none)
}

func genIEDivisible(g *gen) (string, string, string) {
	N := g.n64(100, 5000)
	if g.chance(0.65) {
		var a, b int64
		for {
			a, b = g.n64(2, 15), g.n64(2, 15)
			if a < b && b%a != 0 {
				break
			}
		}
		l := lcm64(a, b)
		na, nb, nl := N/a, N/b, N/l
		either := na + nb - nl
		base := sprintf("The multiples of $%d$ up to $%d$ number $\\left\\lfloor \\frac{%d}{%d} \\right\\rfloor = %d$, the multiples of $%d$ number $%d$, and the numbers divisible by both are the multiples of $\\operatorname{lcm}(%d, %d) = %d$, of which there are $%d$.",
			a, N, N, a, na, b, nb, a, b, l, nl)
		switch g.intn(3) {
		case 0:
			st := sprintf("How many positive integers less than or equal to $%d$ are divisible by $%d$ or $%d$?", N, a, b)
			if g.chance(0.5) {
				st = sprintf("%s circles every number from $1$ to $%d$ that is a multiple of $%d$ or of $%d$. How many numbers are circled?", g.name(), N, a, b)
			}
			return st, base + sprintf(" By inclusion-exclusion, $%d + %d - %d = %d$.", na, nb, nl, either), itoa(either)
		case 1:
			st := sprintf("How many integers from $1$ to $%d$ are divisible by neither $%d$ nor $%d$?", N, a, b)
			if g.chance(0.5) {
				st = sprintf("Among the numbers $1, 2, \\ldots, %d$, how many are multiples of neither $%d$ nor $%d$?", N, a, b)
			}
			return st, base + sprintf(" So $%d + %d - %d = %d$ are divisible by at least one, and $%d - %d = %d$ by neither.", na, nb, nl, either, N, either, N-either), itoa(N - either)
		default:
			st := sprintf("How many positive integers not exceeding $%d$ are divisible by exactly one of $%d$ and $%d$?", N, a, b)
			if g.chance(0.5) {
				st = sprintf("%s lists the integers from $1$ to $%d$ that are multiples of $%d$ or of $%d$ but not of both. How long is the list?", g.name(), N, a, b)
			}
			return st, base + sprintf(" Exactly one: $(%d - %d) + (%d - %d) = %d$.", na, nl, nb, nl, na+nb-2*nl), itoa(na + nb - 2*nl)
		}
	}
	ps := g.distinct([]int64{2, 3, 5, 7, 11, 13}, 3)
	sortInt64(ps)
	a, b, c := ps[0], ps[1], ps[2]
	na, nb, nc := N/a, N/b, N/c
	nab, nac, nbc, nabc := N/(a*b), N/(a*c), N/(b*c), N/(a*b*c)
	u := na + nb + nc - nab - nac - nbc + nabc
	neither := g.chance(0.5)
	var st string
	if neither {
		switch g.intn(2) {
		case 0:
			st = sprintf("How many positive integers up to $%d$ are divisible by none of $%d$, $%d$ and $%d$?", N, a, b, c)
		default:
			st = sprintf("Find the number of integers $n$ with $1 \\le n \\le %d$ that are not divisible by $%d$, by $%d$, or by $%d$.", N, a, b, c)
		}
	} else {
		switch g.intn(2) {
		case 0:
			st = sprintf("How many positive integers not exceeding $%d$ are divisible by at least one of $%d$, $%d$ and $%d$?", N, a, b, c)
		default:
			st = sprintf("%s crosses out every number from $1$ to $%d$ that is a multiple of $%d$, $%d$ or $%d$. How many numbers are crossed out?", g.name(), N, a, b, c)
		}
	}
	w := sprintf("Let $\\lfloor %d/d \\rfloor$ count the multiples of $d$. The single counts are $%d$, $%d$, $%d$; the pairwise counts (for $%d$, $%d$, $%d$) are $%d$, $%d$, $%d$; and the triple count (for $%d$) is $%d$. By inclusion-exclusion, $%d + %d + %d - %d - %d - %d + %d = %d$ numbers are divisible by at least one of them.",
		N, na, nb, nc, a*b, a*c, b*c, nab, nac, nbc, a*b*c, nabc, na, nb, nc, nab, nac, nbc, nabc, u)
	if neither {
		w += sprintf(" Hence $%d - %d = %d$ are divisible by none.", N, u, N-u)
		return st, w, itoa(N - u)
	}
	return st, w, itoa(u)
}

func genDice(g *gen) (string, string, string) {
	s := []int64{6, 6, 6, 4, 8, 10, 12}[g.intn(7)]
	dice := "two fair six-sided dice"
	if s != 6 {
		dice = sprintf("two fair %d-sided dice numbered $1$ to $%d$", s, s)
	}
	nm := g.name()
	tot := s * s
	switch g.intn(5) {
	case 0, 1: // sum equals t
		t := g.n64(3, 2*s-1)
		var pairs []string
		for i := int64(1); i <= s; i++ {
			if j := t - i; j >= 1 && j <= s {
				pairs = append(pairs, sprintf("(%d, %d)", i, j))
			}
		}
		cnt := int64(len(pairs))
		p := q(cnt, tot)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("When %s are rolled [[by %s|in %s's game]], what is the probability that the sum of the numbers shown is $%d$?", dice, nm, t)
		case 1:
			st = g.spinf("[[During a game|At the fair|In a casino game]], %s rolls %s. What is the probability that the two numbers [[add up to|have a sum of]] $%d$?", nm, dice, t)
		default:
			st = g.spinf("In a board game [[played by|invented by]] %s, a player rolls %s and moves forward by their sum. What is the probability of moving exactly $%d$ spaces on one roll?", nm, dice, t)
		}
		st += " Express your answer as a common fraction."
		list := "$" + strings.Join(pairs, ", ") + "$"
		if cnt > 8 {
			lo, hi := max(1, t-s), min(s, t-1)
			list = sprintf("those with first die from $%d$ to $%d$", lo, hi)
		}
		w := sprintf("There are $%d^2 = %d$ equally likely ordered outcomes. The outcomes with sum $%d$ are %s, which is $%d$ outcomes. The probability is $\\frac{%d}{%d} = %s$.", s, tot, t, list, cnt, cnt, tot, p.tex())
		return st, w, p.tex()
	case 2: // sum at least t
		t := g.n64(s/2+2, 2*s)
		cnt := int64(0)
		parts := []string{}
		for i := int64(1); i <= s; i++ {
			c := int64(0)
			for j := int64(1); j <= s; j++ {
				if i+j >= t {
					c++
				}
			}
			cnt += c
			parts = append(parts, itoa(c))
		}
		p := q(cnt, tot)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("Two dice are rolled [[by %s|in %s's game]]; each is a fair die with faces $1$ through $%d$. What is the probability that the sum is at least $%d$?", nm, s, t)
		case 1:
			st = sprintf("%s wins a round by rolling a total of $%d$ or more with %s. What is the probability of winning a round?", nm, t, dice)
		default:
			st = g.spinf("[[Find|What is]] the probability that the total of %s [[rolled by %s|in %s's game]] is greater than or equal to $%d$.", dice, nm, t)
		}
		st += " Express your answer as a common fraction."
		w := sprintf("There are $%d$ equally likely ordered outcomes. For the first die showing $1, 2, \\ldots, %d$, the number of values of the second die giving a sum of at least $%d$ is $%s$ respectively, for a total of $%d$. The probability is $\\frac{%d}{%d} = %s$.",
			tot, s, t, strings.Join(parts, ", "), cnt, cnt, tot, p.tex())
		return st, w, p.tex()
	case 3: // product even
		odd := (s + 1) / 2
		p := q(tot-odd*odd, tot)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("If %s are rolled [[by %s|in %s's game]], what is the probability that the product of the two numbers [[is even|is an even number]]?", dice, nm)
		case 1:
			st = sprintf("%s rolls %s and multiplies the results. Find the probability that the product is an even number.", nm, dice)
		default:
			st = g.spinf("What is the probability that at least one of %s [[rolled by %s|thrown by %s]] shows an even number?", dice, nm)
		}
		st += " Express your answer as a common fraction."
		w := sprintf("The product is odd only when both dice are odd. Each die has $%d$ odd faces out of $%d$, so $P(\\text{odd}) = \\frac{%d^2}{%d} = %s$ and the desired probability is $1 - %s = %s$.",
			odd, s, odd, tot, q(odd*odd, tot).tex(), q(odd*odd, tot).tex(), p.tex())
		return st, w, p.tex()
	default: // differ by exactly d
		d := g.n64(1, s-2)
		cnt := 2 * (s - d)
		p := q(cnt, tot)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("Two fair dice with faces numbered $1$ to $%d$ are rolled [[by %s|in %s's game]]. What is the probability that the numbers shown differ by exactly $%d$?", s, nm, d)
		case 1:
			st = sprintf("%s and %s each roll one fair %d-sided die. What is the probability that their results differ by exactly $%d$?", nm, g.pick("a friend", "a sibling", "a classmate"), s, d)
		default:
			st = g.spinf("When %s are thrown [[by %s|in %s's game]], find the probability that the absolute difference of the two results [[equals|is]] $%d$.", dice, nm, d)
		}
		st += " Express your answer as a common fraction."
		w := sprintf("There are $%d$ ordered outcomes. The larger value can be any of $%d, \\ldots, %d$ with the smaller exactly $%d$ below it, giving $%d$ unordered pairs and $2 \\cdot %d = %d$ ordered outcomes. The probability is $\\frac{%d}{%d} = %s$.",
			tot, d+1, s, d, s-d, s-d, cnt, cnt, tot, p.tex())
		return st, w, p.tex()
	}
}

func genCoins(g *gen) (string, string, string) {
	n := g.n64(4, 12)
	k := g.n64(1, n-1)
	nm := g.name()
	total := int64(1) << n
	mode := g.intn(3) // 0 exactly, 1 at least, 2 at most
	var cnt int64
	terms := []string{}
	vals := []string{}
	for j := int64(0); j <= n; j++ {
		if (mode == 0 && j == k) || (mode == 1 && j >= k) || (mode == 2 && j <= k) {
			cnt += binom(n, j)
			terms = append(terms, binomTeX(n, j))
			vals = append(vals, itoa(binom(n, j)))
		}
	}
	rel := []string{"exactly", "at least", "at most"}[mode]
	p := q(cnt, total)
	var st, what string
	switch g.intn(4) {
	case 0:
		st = sprintf("A fair coin is tossed $%d$ times. What is the probability of getting %s $%d$ heads?", n, rel, k)
		what = "heads"
	case 1:
		st = sprintf("%s flips $%d$ fair coins at once. What is the probability that %s $%d$ of them land tails?", nm, n, rel, k)
		what = "tails"
	case 2:
		st = sprintf("A family has $%d$ children, and each child is equally likely to be a boy or a girl, independently of the others. What is the probability that the family has %s $%d$ girls?", n, rel, k)
		what = "girls"
	default:
		st = sprintf("%s guesses randomly on every question of a $%d$-question true-or-false quiz. What is the probability that %s $%d$ answers are correct?", nm, n, rel, k)
		what = "correct answers"
	}
	st += " Express your answer as a common fraction."
	w := sprintf("Each of the $2^{%d} = %d$ outcomes is equally likely, and the number of outcomes with exactly $j$ %s is $\\binom{%d}{j}$. ", n, total, what, n)
	if len(terms) == 1 {
		w += sprintf("Here that is $%s = %d$", terms[0], cnt)
	} else {
		w += sprintf("Summing over the allowed values of $j$ gives $%s = %s = %d$", strings.Join(terms, " + "), strings.Join(vals, " + "), cnt)
	}
	w += sprintf(", so the probability is $\\frac{%d}{%d} = %s$.", cnt, total, p.tex())
	return st, w, p.tex()
}

func genStarsBars(g *gen) (string, string, string) {
	k := g.n64(3, 6)
	nm := g.name()
	switch g.intn(4) {
	case 0:
		n := g.n64(5, 30)
		v := binom(n+k-1, k-1)
		vars := varList(k)
		var st string
		if g.chance(0.5) {
			st = sprintf("How many ordered $%d$-tuples of non-negative integers $(%s)$ satisfy $%s = %d$?", k, vars, strings.ReplaceAll(vars, ", ", " + "), n)
		} else {
			st = sprintf("Find the number of solutions of $%s = %d$ in non-negative integers.", strings.ReplaceAll(vars, ", ", " + "), n)
		}
		w := sprintf("Represent a solution as $%d$ stars separated by $%d$ bars. The number of arrangements is $%s = %d$.", n, k-1, binomTeX(n+k-1, k-1), v)
		return st, w, itoa(v)
	case 1:
		n := g.n64(k+2, 30)
		v := binom(n-1, k-1)
		vars := varList(k)
		var st string
		if g.chance(0.5) {
			st = sprintf("How many solutions in positive integers does the equation $%s = %d$ have?", strings.ReplaceAll(vars, ", ", " + "), n)
		} else {
			st = sprintf("In how many ways can $%d$ be written as an ordered sum of $%d$ positive integers?", n, k)
		}
		w := sprintf("Line up $%d$ ones; choosing $%d$ of the $%d$ gaps between them to cut splits them into $%d$ positive parts. The count is $%s = %d$.", n, k-1, n-1, k, binomTeX(n-1, k-1), v)
		return st, w, itoa(v)
	case 2:
		m := g.n64(1, 3)
		n := g.n64(k*m, k*m+20)
		rest := n - k*m
		v := binom(rest+k-1, k-1)
		obj := g.pick("identical candies", "identical apples", "identical stickers", "identical pencils")
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("In how many ways can $%d$ %s be distributed among $%d$ children so that each child gets at least $%d$?", n, obj, k, m)
		case 1:
			st = sprintf("%s has $%d$ %s to hand out to $%d$ friends, giving each friend at least $%d$. How many distributions are possible?", nm, n, obj, k, m)
		default:
			st = sprintf("$%d$ %s are to be shared among $%d$ distinguishable boxes, with no box getting fewer than $%d$. Count the possible distributions.", n, obj, k, m)
		}
		w := sprintf("First give each of the $%d$ recipients $%d$, using $%d$ and leaving $%d$. These can be distributed freely; by stars and bars there are $%s = %d$ ways.", k, m, k*m, rest, binomTeX(rest+k-1, k-1), v)
		return st, w, itoa(v)
	default:
		n := g.n64(4, 20)
		v := binom(n+k-1, k-1)
		shop := g.pick("donut shop", "gelato shop", "bakery", "tea house")
		var st string
		switch g.intn(2) {
		case 0:
			st = sprintf("A %s sells $%d$ kinds of %s. How many different selections of $%d$ items can %s buy, if items of the same kind are indistinguishable?", shop, k, g.pick("treats", "pastries", "snacks"), n, nm)
		default:
			st = sprintf("%s wants to buy $%d$ items at a %s offering $%d$ varieties, with repetition allowed and order irrelevant. How many different purchases are possible?", nm, n, shop, k)
		}
		w := sprintf("A purchase is determined by how many items of each of the $%d$ kinds are taken, i.e. by a non-negative solution of $x_1 + \\cdots + x_{%d} = %d$. By stars and bars there are $%s = %d$.", k, k, n, binomTeX(n+k-1, k-1), v)
		return st, w, itoa(v)
	}
}

func varList(k int64) string {
	xs := make([]string, k)
	for t := range xs {
		xs[t] = sprintf("x_%d", t+1)
	}
	return strings.Join(xs, ", ")
}

func genCircular(g *gen) (string, string, string) {
	n := g.n64(5, 10)
	a, b := g.names2()
	f1, f2 := factorials[n-1], 2*factorials[n-2]
	switch g.intn(4) {
	case 0:
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("In how many ways can $%d$ %s be seated around a [[round|circular]] %s [[at %s's %s|for %s's %s]], if two seatings that differ only by a rotation are [[considered|counted as]] the same?", n, g.pick("people", "guests", "friends", "delegates", "students", "players"), g.pick("table", "dinner table", "conference table"), a, g.pick("party", "wedding", "meeting", "reunion", "book club"))
		case 1:
			st = g.spinf("For %s, %s invites $%d$ %s, and all $%d$ people sit at a [[round|circular]] table. Seatings that are rotations of each other [[count as identical|are not distinguished|are considered the same]]. How many [[seatings|seating arrangements]] are [[there|possible]]?", g.pick("a birthday dinner", "a holiday meal", "a game night", "a farewell lunch"), a, n-1, g.pick("friends", "relatives", "colleagues", "neighbors"), n)
		default:
			st = g.spinf("How many [[distinct|different]] circular arrangements of $%d$ different %s [[are there%.0s|can %s make|are possible%.0s]], where rotations are [[considered equivalent|not distinguished]]?", n, g.pick("flower pots", "chairs", "flags", "lanterns", "statues", "potted plants"), a)
		}
		w := sprintf("Fix one object's position to remove the rotational symmetry; the remaining $%d$ can then be arranged in $%d! = %d$ ways.", n-1, n-1, f1)
		return st, w, itoa(f1)
	case 1:
		var st string
		switch g.intn(2) {
		case 0:
			st = g.spinf("$%d$ %s, including %s and %s, sit around a [[round|circular]] table. If %s and %s [[insist on sitting|want to sit]] next to each other, how many seatings are possible, up to rotation?", n, g.pick("people", "guests", "friends", "students"), a, b, a, b)
		default:
			st = g.spinf("At a [[round|circular]] table with $%d$ seats, %s and %s must sit side by side. Counting seatings that differ by a rotation as the same, how many arrangements of the $%d$ %s are there?", n, a, b, n, g.pick("guests", "diners", "players", "people"))
		}
		w := sprintf("Glue %s and %s into one block. Then $%d$ units sit around the table in $(%d-1)! = %d$ ways, and the two can be ordered within the block in $2$ ways, giving $2 \\cdot %d = %d$.", a, b, n-1, n-1, factorials[n-2], factorials[n-2], f2)
		return st, w, itoa(f2)
	case 2:
		var st string
		switch g.intn(2) {
		case 0:
			st = g.spinf("$%d$ %s, among them %s and %s, are seated at a [[round|circular]] table. In how many ways can this be done, up to rotation, if %s and %s refuse to sit next to each other?", n, g.pick("people", "guests", "friends", "students"), a, b, a, b)
		default:
			st = g.spinf("%s and %s are not on speaking terms. In how many rotationally distinct ways can they and $%d$ [[others|other guests|more people]] sit around a [[circular|round]] table so that the two are not [[adjacent|neighbors]]?", a, b, n-2)
		}
		w := sprintf("Without restriction there are $(%d-1)! = %d$ seatings. Seatings with the two adjacent number $2 \\cdot (%d-2)! = %d$ (treat them as a block). The answer is $%d - %d = %d$.", n, f1, n, f2, f1, f2, f1-f2)
		return st, w, itoa(f1 - f2)
	default:
		v := f1 / 2
		var st string
		switch g.intn(2) {
		case 0:
			st = g.spinf("How many different %s can %s make by threading $%d$ distinct %s onto a loop, if two are [[the same|considered identical]] when one can be rotated or flipped to give the other?", g.pick("bracelets", "necklaces", "anklets", "key rings"), a, n, g.pick("beads", "charms", "pearls", "glass beads", "shells"))
		default:
			st = g.spinf("%s strings $%d$ differently colored %s on a circular %s. [[Necklaces|Designs]] that match after rotating or turning over are [[considered identical|counted once]]. How many [[designs|different results]] are possible?", a, n, g.pick("beads", "stones", "crystals", "buttons"), g.pick("necklace", "bracelet", "wire loop"))
		}
		w := sprintf("Up to rotation there are $(%d-1)! = %d$ circular arrangements. Flipping pairs each arrangement with its mirror image, which is different since the beads are distinct and $%d \\ge 3$, so the count is $\\frac{%d}{2} = %d$.", n, f1, n, f1, v)
		return st, w, itoa(v)
	}
}

func genGridPaths(g *gen) (string, string, string) {
	a, b := g.n64(2, 12), g.n64(2, 12)
	nm := g.name()
	tot := binom(a+b, a)
	mode := g.intn(3)
	var p, qq int64
	if mode > 0 {
		p, qq = g.n64(1, a-1), g.n64(1, b-1)
	}
	via := binom(p+qq, p) * binom(a-p+b-qq, a-p)
	var st string
	switch mode {
	case 0:
		switch g.intn(3) {
		case 0:
			st = g.spinf("How many lattice paths [[go|lead]] from $(0, 0)$ to $(%d, %d)$ [[using only|if they use only|made of]] unit steps [[to the right or up|up or to the right|right and up]][[?%.0s|, as %s wants to know?|, if %s draws them all?]]", a, b, nm)
		case 1:
			st = g.spinf("In a rectangular street grid, the %s is $%d$ blocks east and $%d$ blocks north of %s's %s. Walking only east or north, how many different [[routes|shortest routes|paths]] can %s take?", g.pick("school", "library", "park", "swimming pool", "bakery", "stadium"), a, b, nm, g.pick("house", "apartment", "home"), nm)
		default:
			st = g.spinf("A robot %s moves one square right or one square up at each step. In how many ways can it travel from the [[bottom-left corner|origin]] $(0,0)$ to the point $(%d,%d)$ [[of the grid|on the board|]]?", g.pick("built by "+nm, "on a grid", "in a warehouse", "programmed by "+nm), a, b)
		}
		w := sprintf("Every path consists of $%d$ right steps and $%d$ up steps in some order, so the number of paths is $%s = %d$.", a, b, binomTeX(a+b, a), tot)
		return st, w, itoa(tot)
	case 1:
		switch g.intn(2) {
		case 0:
			st = g.spinf("How many paths from $(0, 0)$ to $(%d, %d)$ that use unit steps [[right and up|up and right]] pass through the point $(%d, %d)$?", a, b, p, qq)
		default:
			st = sprintf("Walking from the corner $(0,0)$ of a street grid to $(%d,%d)$, %s moves only east or north and wants to stop at a %s at $(%d,%d)$ on the way. How many such routes are there?", a, b, nm, g.pick("cafe", "bakery", "friend's house", "bookshop", "post office"), p, qq)
		}
		w := sprintf("There are $%s = %d$ ways to reach $(%d, %d)$ and $%s = %d$ ways to continue to $(%d, %d)$, so $%d \\cdot %d = %d$ paths.",
			binomTeX(p+qq, p), binom(p+qq, p), p, qq, binomTeX(a-p+b-qq, a-p), binom(a-p+b-qq, a-p), a, b, binom(p+qq, p), binom(a-p+b-qq, a-p), via)
		return st, w, itoa(via)
	default:
		switch g.intn(2) {
		case 0:
			st = g.spinf("How many lattice paths from $(0, 0)$ to $(%d, %d)$ with unit steps [[right and up|up and right]] avoid the point $(%d, %d)$?", a, b, p, qq)
		default:
			st = g.spinf("Walking along a street grid from $(0,0)$ to $(%d,%d)$, %s moves only east or north, but the intersection $(%d,%d)$ is closed [[for repairs|because of a parade|today]]. How many routes avoid it?", a, b, nm, p, qq)
		}
		w := sprintf("All paths: $%s = %d$. Paths through $(%d, %d)$: $%s \\cdot %s = %d$. Paths avoiding it: $%d - %d = %d$.",
			binomTeX(a+b, a), tot, p, qq, binomTeX(p+qq, p), binomTeX(a-p+b-qq, a-p), via, tot, via, tot-via)
		return st, w, itoa(tot - via)
	}
}

func genDivisorConditions(g *gen) (string, string, string) {
	ps, es, n := g.factored([]int64{2, 3, 5, 7, 11}, 2, 4, 60, 10000000)
	nm := g.name()
	fact := sprintf("The prime factorization is $%d = %s$. ", n, factorTeX(ps, es))
	modes := []int{1, 2, 3}
	if ps[0] == 2 {
		modes = append(modes, 0)
	}
	switch modes[g.intn(len(modes))] {
	case 0: // even divisors
		v := int64(es[0])
		parts := []string{itoa(int64(es[0]))}
		for k := 1; k < len(ps); k++ {
			v *= int64(es[k] + 1)
			parts = append(parts, sprintf("%d", es[k]+1))
		}
		st := g.spinf("How many positive divisors of $%d$ are even[[?%.0s|, as %s wonders?| according to %s?]]", n, nm)
		if g.chance(0.5) {
			st = sprintf("%s lists all the positive divisors of $%d$ and circles the even ones. How many are circled?", nm, n)
		}
		w := fact + sprintf("An even divisor has exponent of $2$ between $1$ and $%d$ ($%d$ choices), and any exponent for the other primes. The count is $%s = %d$.", es[0], es[0], strings.Join(parts, " \\cdot "), v)
		return st, w, itoa(v)
	case 1: // odd divisors
		v := int64(1)
		parts := []string{}
		for k := range ps {
			if ps[k] == 2 {
				continue
			}
			v *= int64(es[k] + 1)
			parts = append(parts, sprintf("(%d+1)", es[k]))
		}
		st := g.spinf("How many positive divisors of $%d$ are [[odd|odd numbers]]%s", n, "?")
		if g.chance(0.5) {
			st = sprintf("Find the number of odd positive integers that divide $%d$.", n)
		}
		w := fact + "An odd divisor contains no factor of $2$, so it is a divisor of the odd part of the number, with free exponents for the odd primes. "
		if len(parts) == 1 {
			w += sprintf("The count is $%s = %d$.", parts[0], v)
		} else {
			w += sprintf("The count is $%s = %d$.", strings.Join(parts, ""), v)
		}
		return st, w, itoa(v)
	case 2: // perfect squares
		v := int64(1)
		parts := []string{}
		for k := range ps {
			c := int64(es[k]/2 + 1)
			v *= c
			parts = append(parts, itoa(c))
		}
		st := g.spinf("How many positive divisors of $%d$ are perfect squares[[?%.0s|, including %s?]]", n, "$1$")
		if g.chance(0.5) {
			st = sprintf("%s wants to know how many perfect squares divide $%d$, counting $1$. What is the answer?", nm, n)
		}
		w := fact + sprintf("A divisor is a perfect square exactly when every exponent is even. For an exponent bound $e$ there are $\\lfloor e/2 \\rfloor + 1$ even choices, giving $%s = %d$.", strings.Join(parts, " \\cdot "), v)
		return st, w, itoa(v)
	default: // multiples of m
		m := int64(1)
		v := int64(1)
		parts := []string{}
		for k := range ps {
			f := g.n(0, es[k])
			m *= ipow(ps[k], f)
			c := int64(es[k] - f + 1)
			v *= c
			parts = append(parts, itoa(c))
		}
		if m == 1 {
			m = ps[0]
			v = v / int64(es[0]+1) * int64(es[0])
			parts[0] = itoa(int64(es[0]))
		}
		st := sprintf("How many positive divisors of $%d$ are multiples of $%d$?", n, m)
		if g.chance(0.5) {
			st = sprintf("Among the positive divisors of $%d$, how many are divisible by $%d$?", n, m)
		}
		pm, em := factor(m)
		w := fact + sprintf("Since $%d = %s$, a divisor of the number is a multiple of $%d$ exactly when each prime exponent is at least the exponent in $%d$. The number of choices for each prime is (upper bound minus lower bound plus one), giving $%s = %d$.",
			m, factorTeX(pm, em), m, m, strings.Join(parts, " \\cdot "), v)
		return st, w, itoa(v)
	}
}

// derangementsUpTo returns D(0..n).
func derangementsUpTo(n int64) []int64 {
	d := make([]int64, n+1)
	d[0] = 1
	if n >= 1 {
		d[1] = 0
	}
	for m := int64(2); m <= n; m++ {
		d[m] = (m - 1) * (d[m-1] + d[m-2])
	}
	return d
}

func genDerangements(g *gen) (string, string, string) {
	n := g.n64(4, 9)
	k := int64(0)
	if g.chance(0.5) {
		k = g.n64(1, min(3, n-2))
	}
	D := derangementsUpTo(n)
	m := n - k
	v := binom(n, k) * D[m]
	nm := g.name()
	var st string
	if k == 0 {
		switch g.intn(4) {
		case 0:
			st = g.spinf("After writing $%d$ letters [[and|then]] addressing $%d$ matching envelopes, %s puts the letters into the envelopes [[at random|randomly]], one per envelope. In how many ways can this be done so that no letter [[is in|ends up in]] its correct envelope?", n, n, nm)
		case 1:
			st = sprintf("$%d$ guests check their %s at %s's %s, and at the end the %s are handed back at random, one per guest. In how many ways can nobody receive their own?", n, g.pick("hats", "coats", "umbrellas", "bags"), nm, g.pick("party", "wedding", "dinner", "gala"), g.pick("items", "belongings"))
		case 2:
			st = g.spinf("[[A teacher%.0s|%s's teacher|Our teacher%.0s]] returns $%d$ %s to $%d$ students for peer grading so that each student grades exactly one. In how many ways can this be done if no student grades [[their own work|their own paper]]?", nm, n, g.pick("quizzes", "essays", "lab reports", "tests"), n)
		default:
			st = g.spinf("In a gift exchange [[among|between]] $%d$ %s organized by %s, each brings a gift and each receives exactly one. How many assignments leave no one with the gift they brought?", n, g.pick("friends", "coworkers", "cousins", "classmates", "neighbors"), nm)
		}
	} else {
		switch g.intn(3) {
		case 0:
			st = g.spinf("%s puts $%d$ letters into $%d$ addressed envelopes at random, one per envelope. In how many ways can the number of letters in the [[correct|right]] envelope be exactly $%d$?", nm, n, n, k)
		case 1:
			st = g.spinf("$%d$ %s are returned [[at random|randomly]] to their $%d$ owners [[by %s|at the end of the evening%.0s]], one each. In how many ways can exactly $%d$ of the owners get their own [[back|item back]]?", n, g.pick("coats", "hats", "phones", "keys"), n, nm, k)
		default:
			st = g.spinf("How many permutations of [[the numbers|the integers|]] $1, 2, \\ldots, %d$ have exactly $%d$ fixed points?", n, k)
		}
	}
	ds := []string{}
	for t := int64(2); t <= m; t++ {
		ds = append(ds, sprintf("D_{%d} = %d", t, D[t]))
	}
	w := sprintf("Let $D_m$ be the number of derangements of $m$ objects. They satisfy $D_1 = 0$, $D_2 = 1$ and $D_m = (m-1)(D_{m-1} + D_{m-2})$, giving $%s$.", strings.Join(ds, ",\\ "))
	if k == 0 {
		w += sprintf(" We need $D_{%d} = %d$.", n, v)
	} else {
		w += sprintf(" Choose which $%d$ are fixed in $%s = %d$ ways; the remaining $%d$ must all be misplaced, in $D_{%d} = %d$ ways. The total is $%d \\cdot %d = %d$.", k, binomTeX(n, k), binom(n, k), m, m, D[m], binom(n, k), D[m], v)
	}
	return st, w, itoa(v)
}
