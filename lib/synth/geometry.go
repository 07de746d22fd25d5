package synth

import "strings"

var geometryTemplates = []template{
	{"heron-area", []string{"Geometry/Triangles/Heron's Formula", "Geometry/Area/Triangle Area"}, genHeron},
	{"pythagorean-word", []string{"Geometry/Triangles/Pythagorean Theorem"}, genPythagorean},
	{"inscribed-circle", []string{"Geometry/Circles/Incircle", "Geometry/Triangles/Heron's Formula"}, genIncircle},
	{"polygon-angles", []string{"Geometry/Polygons/Interior and Exterior Angles"}, genPolygonAngles},
	{"coordinate-distance", []string{"Geometry/Coordinate Geometry/Distance Formula"}, genDistance},
	{"similar-triangles", []string{"Geometry/Triangles/Similar Triangles"}, genSimilar},
	{"circle-sector", []string{"Geometry/Circles/Arc Length and Sector Area"}, genSector},
	{"shoelace-area", []string{"Geometry/Coordinate Geometry/Shoelace Formula", "Geometry/Area/Triangle Area"}, genShoelace},
	{"box-diagonal", []string{"Geometry/Solid Geometry/Rectangular Prisms"}, genBox},
	{"solid-volume", []string{"Geometry/Solid Geometry/Volume"}, genSolidVolume},
	{"lattice-points-segment", []string{"Geometry/Coordinate Geometry/Lattice Points", "Number Theory/Divisibility/GCD and LCM"}, genLatticeSegment},
}

// heronian lists the triangles with integer sides a ≤ b ≤ c ≤ 60 and integer
// area, as {a, b, c, area}.
var heronian = func() [][4]int64 {
	var out [][4]int64
	for c := int64(1); c <= 60; c++ {
		for b := int64(1); b <= c; b++ {
			for a := int64(1); a <= b; a++ {
				if a+b <= c || (a+b+c)%2 != 0 {
					continue
				}
				s := (a + b + c) / 2
				x := s * (s - a) * (s - b) * (s - c)
				r := isqrtFast(x)
				if r*r == x && r > 0 {
					out = append(out, [4]int64{a, b, c, r})
				}
			}
		}
	}
	return out
}()

// triples lists the Pythagorean triples a < b < c ≤ 100.
var triples = func() [][3]int64 {
	var out [][3]int64
	for c := int64(5); c <= 100; c++ {
		for a := int64(3); a < c; a++ {
			b2 := c*c - a*a
			b := isqrtFast(b2)
			if b*b == b2 && a < b {
				out = append(out, [3]int64{a, b, c})
			}
		}
	}
	return out
}()

// shuffled3 returns the three sides in a random order.
func (g *gen) shuffled3(a, b, c int64) [3]int64 {
	v := [3]int64{a, b, c}
	p := g.r.Perm(3)
	return [3]int64{v[p[0]], v[p[1]], v[p[2]]}
}

func heronWork(a, b, c, K int64) string {
	s := (a + b + c) / 2
	return sprintf("The semiperimeter is $s = \\frac{%d + %d + %d}{2} = %d$. By Heron's formula the area is $\\sqrt{s(s-a)(s-b)(s-c)} = \\sqrt{%d \\cdot %d \\cdot %d \\cdot %d} = \\sqrt{%d} = %d$.",
		a, b, c, s, s, s-a, s-b, s-c, s*(s-a)*(s-b)*(s-c), K)
}

func genHeron(g *gen) (string, string, string) {
	h := heronian[g.intn(len(heronian))]
	v := g.shuffled3(h[0], h[1], h[2])
	unit := g.pick("centimeters", "meters", "inches", "feet", "units")
	var st string
	switch g.intn(4) {
	case 0:
		st = g.spinf("A triangle [[drawn by %s|built by %s|on %s's worksheet]] has side lengths $%d$, $%d$, and $%d$ %s. [[Find|What is]] its area in square %s.", g.name(), v[0], v[1], v[2], unit, unit)
	case 1:
		st = g.spinf("[[What is|Find]] the area of [[the|a]] triangle whose sides [[measure|have lengths|are]] $%d$, $%d$ and $%d$ %s.", v[0], v[1], v[2], unit)
	case 2:
		st = sprintf("%s has a triangular %s with sides of length $%d$ %s, $%d$ %s and $%d$ %s and wants to cover it completely with %s. How many square %s must be covered?",
			g.name(), g.pick("garden bed", "plot of land", "sheet of plywood", "sail"), v[0], unit, v[1], unit, v[2], unit, g.pick("mulch", "paint", "fabric"), unit)
	default:
		st = g.spinf("In triangle $ABC$ [[we have|it is given that|one has]] $AB = %d$, $BC = %d$ and $CA = %d$. [[Compute|What is]] the area of [[triangle $ABC$|the triangle|$\\triangle ABC$]].", v[0], v[1], v[2])
	}
	return st, heronWork(v[0], v[1], v[2], h[3]), itoa(h[3])
}

func genPythagorean(g *gen) (string, string, string) {
	t := triples[g.intn(len(triples))]
	a, b, c := t[0], t[1], t[2]
	if g.chance(0.5) {
		a, b = b, a
	}
	unit := g.pick("meters", "feet")
	switch g.intn(4) {
	case 0:
		var st string
		if g.chance(0.5) {
			st = sprintf("A ladder $%d$ %s long leans against a vertical wall, with its foot $%d$ %s from the base of the wall on level ground. How high up the wall does the top of the ladder reach, in %s?", c, unit, a, unit, unit)
		} else {
			st = sprintf("%s props a ladder of length $%d$ %s against a wall so that its bottom end is $%d$ %s from the wall. Find the height at which the ladder touches the wall.", g.name(), c, unit, a, unit)
		}
		w := sprintf("The ladder, the wall and the ground form a right triangle with hypotenuse $%d$ and one leg $%d$. The other leg is $\\sqrt{%d^2 - %d^2} = \\sqrt{%d - %d} = \\sqrt{%d} = %d$.", c, a, c, a, c*c, a*a, b*b, b)
		return st, w, itoa(b)
	case 1:
		var st string
		switch g.intn(2) {
		case 0:
			st = sprintf("A rectangular %s is $%d$ %s long and $%d$ %s wide. How long is its diagonal?", g.pick("field", "park", "parking lot", "courtyard"), a, unit, b, unit)
		default:
			nm := g.name()
			st = sprintf("%s walks $%d$ %s due north and then $%d$ %s due east. How far, in a straight line, is %s from the starting point?", nm, a, unit, b, unit, nm)
		}
		w := sprintf("The two perpendicular lengths are legs of a right triangle, so the required distance is the hypotenuse $\\sqrt{%d^2 + %d^2} = \\sqrt{%d + %d} = \\sqrt{%d} = %d$.", a, b, a*a, b*b, c*c, c)
		return st, w, itoa(c)
	case 2:
		st := g.spinf("A right triangle [[on %s's homework|sketched by %s|in %s's notebook]] has a hypotenuse of length $%d$ and one leg of length $%d$. What is the length of the [[other|remaining|second]] leg?", g.name(), c, a)
		if g.chance(0.5) {
			st = g.spinf("In right triangle $PQR$ [[with the right angle|right-angled]] at $Q$, the hypotenuse $PR$ [[equals|is]] $%d$ and $PQ = %d$. [[Find|How long is]] $QR$.", c, a)
		}
		w := sprintf("By the Pythagorean theorem, the missing leg is $\\sqrt{%d^2 - %d^2} = \\sqrt{%d} = %d$.", c, a, b*b, b)
		return st, w, itoa(b)
	default:
		st := sprintf("A kite is flying at the end of a straight string of length $%d$ %s. The kite is directly above a point that is $%d$ %s from %s, who holds the string at ground level. How high is the kite?", c, unit, a, unit, g.name())
		w := sprintf("The string is the hypotenuse of a right triangle whose horizontal leg is $%d$. The height is $\\sqrt{%d^2 - %d^2} = \\sqrt{%d} = %d$.", a, c, a, b*b, b)
		return st, w, itoa(b)
	}
}

func genIncircle(g *gen) (string, string, string) {
	if g.chance(0.4) {
		t := triples[g.intn(len(triples))]
		a, b, c := t[0], t[1], t[2]
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A right triangle [[drawn by %s|on %s's worksheet]] has legs of length $%d$ and $%d$. Find the radius of the circle [[inscribed in|that fits inside]] the triangle [[tangent to all three sides|]].", g.name(), a, b)
		case 1:
			st = g.spinf("What is the [[inradius|radius of the incircle]] of a right triangle whose legs [[measure|have lengths]] $%d$ and $%d$ %s?", a, b, g.pick("units", "cm", "inches", "meters"))
		default:
			st = sprintf("%s cuts the largest possible circle out of a right-triangular piece of %s with legs $%d$ cm and $%d$ cm. What is the radius of the circle, in centimeters?", g.name(), g.pick("cardboard", "felt", "sheet metal"), a, b)
		}
		r := (a + b - c) / 2
		w := sprintf("The hypotenuse is $\\sqrt{%d^2 + %d^2} = %d$. In a right triangle the tangent lengths from the right-angle vertex both equal the inradius $r$, so $r = \\frac{a + b - c}{2} = \\frac{%d + %d - %d}{2} = %d$.", a, b, c, a, b, c, r)
		return st, w, itoa(r)
	}
	h := heronian[g.intn(len(heronian))]
	v := g.shuffled3(h[0], h[1], h[2])
	s := (h[0] + h[1] + h[2]) / 2
	r := q(h[3], s)
	var st string
	switch g.intn(3) {
	case 0:
		st = g.spinf("A triangle [[drawn by %s|on %s's worksheet]] has sides $%d$, $%d$ and $%d$. [[Find|What is]] the radius of its inscribed circle.", g.name(), v[0], v[1], v[2])
	case 1:
		st = g.spinf("Triangle $XYZ$ [[has|satisfies]] $XY = %d$, $YZ = %d$ and $ZX = %d$. What is the radius of the circle [[tangent to all three sides|inscribed in it]][[?| of the triangle?]]", v[0], v[1], v[2])
	default:
		st = sprintf("%s draws a triangle with side lengths $%d$, $%d$ and $%d$ and then the circle inscribed in it. Compute the radius of that circle.", g.name(), v[0], v[1], v[2])
	}
	if !r.isInt() && g.chance(0.5) {
		st += " Express your answer as a common fraction."
	}
	w := heronWork(v[0], v[1], v[2], h[3]) + sprintf(" The area also equals $rs$, where $r$ is the inradius, so $r = \\frac{%d}{%d} = %s$.", h[3], s, r.tex())
	return st, w, r.tex()
}

var polyNames = map[int64]string{3: "triangle", 4: "square", 5: "pentagon", 6: "hexagon", 7: "heptagon", 8: "octagon",
	9: "nonagon", 10: "decagon", 12: "dodecagon"}

func genPolygonAngles(g *gen) (string, string, string) {
	divs := []int64{5, 6, 8, 9, 10, 12, 15, 18, 20, 24, 30, 36, 40, 45, 60, 72, 90, 120, 180}
	obj := g.pick("tile", "table top", "window frame", "garden path", "coaster", "badge", "gazebo floor")
	nm := g.name()
	switch g.intn(4) {
	case 0:
		n := divs[g.intn(len(divs))]
		ang := 180 - 360/n
		var st string
		poly := sprintf("regular polygon with $%d$ sides", n)
		if pn, ok := polyNames[n]; ok && g.chance(0.5) {
			poly = "regular " + pn
		}
		switch g.intn(3) {
		case 0:
			st = g.spinf("What is the measure, in degrees, of each interior angle of a %s [[drawn by %s|on %s's poster|in %s's design]]?", poly, nm)
		case 1:
			st = sprintf("%s is designing a %s in the shape of a %s. What is the measure in degrees of each interior angle?", nm, obj, poly)
		default:
			st = g.spinf("[[Find|Give]] the size of one interior angle of a %s [[used as a %s|shaped like a %s]], in degrees.", poly, obj)
		}
		w := sprintf("The exterior angles of a convex polygon sum to $360^\\circ$, so each exterior angle of a regular $%d$-gon is $\\frac{360^\\circ}{%d} = %d^\\circ$. Each interior angle is $180^\\circ - %d^\\circ = %d^\\circ$.", n, n, 360/n, 360/n, ang)
		return st, w, itoa(ang)
	case 1:
		n := divs[g.intn(len(divs))]
		ang := 180 - 360/n
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("Each interior angle of a regular polygon [[drawn by %s|on %s's sketch|in %s's design]] measures $%d^\\circ$. How many sides does [[the polygon|it|this polygon]] have?", nm, ang)
		case 1:
			st = sprintf("%s makes a %s shaped like a regular polygon in which every interior angle is $%d^\\circ$. How many sides does it have?", nm, obj, ang)
		default:
			st = g.spinf("A regular polygon [[used for a %s|shaped like a %s]] has interior angles of $%d$ degrees. [[Determine|Find]] its number of sides.", obj, ang)
		}
		w := sprintf("Each exterior angle is $180^\\circ - %d^\\circ = %d^\\circ$. The exterior angles sum to $360^\\circ$, so the number of sides is $\\frac{360}{%d} = %d$.", ang, 360/n, 360/n, n)
		return st, w, itoa(n)
	case 2:
		n := g.n64(5, 40)
		sum := 180 * (n - 2)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("What is the sum of the interior angles, in degrees, of a convex polygon with $%d$ sides [[drawn by %s|on %s's sheet|sketched by %s]]?", n, nm)
		case 1:
			st = sprintf("%s draws a convex polygon with $%d$ vertices and measures all of its interior angles. What is their total in degrees?", nm, n)
		default:
			st = g.spinf("Find the sum of the measures of all [[the|]] interior angles of a convex $%d$-gon [[drawn by %s|that %s sketched|in %s's notebook]].", n, nm)
		}
		w := sprintf("Drawing the diagonals from one vertex splits a convex $%d$-gon into $%d - 2 = %d$ triangles, each with angle sum $180^\\circ$. The total is $180^\\circ \\cdot %d = %d^\\circ$.", n, n, n-2, n-2, sum)
		return st, w, itoa(sum)
	default:
		n := g.n64(5, 40)
		sum := 180 * (n - 2)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("The interior angles of a convex polygon [[drawn by %s|on %s's sheet]] add up to $%d^\\circ$. How many sides does [[the polygon|it]] have?", nm, sum)
		case 1:
			st = sprintf("%s measured every interior angle of a convex polygonal %s and found that they total $%d$ degrees. How many sides does the polygon have?", nm, obj, sum)
		default:
			st = g.spinf("If the sum of the interior angles of a convex polygon [[used as a %s|shaped like a %s]] is $%d$ degrees, [[find|how many are]] the number of its vertices.", obj, sum)
		}
		w := sprintf("An $n$-gon has interior angle sum $180(n-2)$ degrees. Solving $180(n - 2) = %d$ gives $n - 2 = %d$, so $n = %d$.", sum, n-2, n)
		return st, w, itoa(n)
	}
}

func genDistance(g *gen) (string, string, string) {
	var x1, y1, x2, y2 int64
	for {
		x1, y1, x2, y2 = g.n64(-15, 15), g.n64(-15, 15), g.n64(-15, 15), g.n64(-15, 15)
		if x1 != x2 && y1 != y2 {
			break
		}
	}
	P, Q := sprintf("(%d, %d)", x1, y1), sprintf("(%d, %d)", x2, y2)
	dx, dy := x2-x1, y2-y1
	d2 := dx*dx + dy*dy
	ans, _, _ := sqrtTeX(d2)
	var st string
	switch g.intn(4) {
	case 0:
		st = g.spinf("[[Find|What is]] the distance between the points $%s$ and $%s$ [[in the coordinate plane%.0s|in the plane%.0s|on %s's graph]].", P, Q, g.name())
	case 1:
		st = g.spinf("Points $A = %s$ and $B = %s$ are [[given%.0s|marked by %s]]. What is the length of [[segment $AB$|$\\overline{AB}$]]?", P, Q, g.name())
	case 2:
		st = sprintf("On a map with a square grid in which each unit is one kilometer, %s's house is at $%s$ and the %s is at $%s$. How many kilometers apart are they, measured in a straight line?", g.name(), P, g.pick("school", "library", "train station", "bakery"), Q)
	default:
		st = g.spinf("A circle [[drawn by %s|on %s's graph paper]] is centered at $%s$ and passes through the point $%s$. [[Find|What is]] its radius.", g.name(), P, Q)
	}
	if strings.Contains(ans, "sqrt") && g.chance(0.5) {
		st += " Express your answer in simplest radical form."
	}
	w := sprintf("By the distance formula, the distance is $\\sqrt{(%d - %s)^2 + (%d - %s)^2} = \\sqrt{%s^2 + %s^2} = \\sqrt{%d}",
		x2, paren(x1), y2, paren(y1), paren(dx), paren(dy), d2)
	if ans != `\sqrt{`+itoa(d2)+"}" {
		w += " = " + ans
	}
	w += "$."
	return st, w, ans
}

func genSimilar(g *gen) (string, string, string) {
	if g.chance(0.5) {
		h := g.n64(140, 195)
		s := g.n64(40, 300)
		k := q(g.n64(3, 40), g.n64(1, 4))
		S := k.mul(qi(s))
		for !S.isInt() {
			s++
			S = k.mul(qi(s))
		}
		H := k.mul(qi(h))
		nm := g.name()
		thing := g.pick("tree", "flagpole", "lamp post", "building", "statue")
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("%s is $%d$ cm tall and casts a shadow $%d$ cm long. At the same moment a nearby %s casts a shadow $%d$ cm long. How tall is the %s, in centimeters?", nm, h, s, thing, S.n, thing)
		case 1:
			st = sprintf("At a certain time of day a %s casts a $%d$ cm shadow, while %s, who is $%d$ cm tall, casts a $%d$ cm shadow. Find the height of the %s in centimeters.", thing, S.n, nm, h, s, thing)
		default:
			st = sprintf("The sun's rays make equal angles with level ground for %s and a %s standing side by side. %s is $%d$ cm tall with a shadow of $%d$ cm; the shadow of the %s is $%d$ cm. What is the height of the %s?", nm, thing, nm, h, s, thing, S.n, thing)
		}
		if !H.isInt() && g.chance(0.5) {
			st += " Give your answer as a fraction if necessary."
		}
		w := sprintf("The sun's rays are parallel, so the person with the shadow and the %s with its shadow form similar right triangles. Hence $\\frac{H}{%d} = \\frac{%d}{%d}$, giving $H = \\frac{%d \\cdot %d}{%d} = %s$.", thing, S.n, h, s, h, S.n, s, H.tex())
		return st, w, H.tex()
	}
	p, qq := g.n64(2, 15), g.n64(2, 15)
	e := g.n64(3, 30)
	BC := q(e*(p+qq), p)
	var st string
	switch g.intn(3) {
	case 0:
		st = g.spinf("In triangle $ABC$, points $D$ and $E$ lie on [[$AB$ and $AC$|sides $AB$ and $AC$]] with $DE \\parallel BC$. If $AD = %d$, $DB = %d$ and $DE = %d$, [[find|what is]] $BC$.", p, qq, e)
	case 1:
		st = g.spinf("A line parallel to side $BC$ of triangle $ABC$ meets $AB$ at $D$ and $AC$ at $E$. Given [[that|]] $AD = %d$, $DB = %d$ and $DE = %d$, what is the length of [[$BC$|side $BC$]]?", p, qq, e)
	default:
		st = sprintf("%s draws triangle $ABC$ and a segment $DE$ parallel to $BC$, with $D$ on $AB$ and $E$ on $AC$. The measurements are $AD = %d$, $DB = %d$ and $DE = %d$. Compute $BC$.", g.name(), p, qq, e)
	}
	w := sprintf("Since $DE \\parallel BC$, triangles $ADE$ and $ABC$ are similar with ratio $\\frac{AB}{AD} = \\frac{%d + %d}{%d} = %s$. Therefore $BC = %s \\cdot %d = %s$.", p, qq, p, q(p+qq, p).tex(), q(p+qq, p).tex(), e, BC.tex())
	return st, w, BC.tex()
}

func genSector(g *gen) (string, string, string) {
	angles := []int64{15, 20, 24, 30, 36, 40, 45, 50, 60, 72, 75, 80, 90, 100, 108, 120, 135, 140, 144, 150, 160, 210, 225, 240, 270, 300}
	r := g.n64(2, 30)
	th := angles[g.intn(len(angles))]
	nm := g.name()
	switch g.intn(3) {
	case 0:
		L := q(th*r, 180)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A circle [[drawn by %s|on %s's worksheet]] has radius $%d$. [[Find|What is]] the length of an arc [[subtended by|cut off by]] a central angle of $%d^\\circ$.", g.name(), r, th)
		case 1:
			st = sprintf("%s walks along a circular track of radius $%d$ meters, covering an arc with central angle $%d^\\circ$. How many meters does %s walk?", nm, r, th, nm)
		default:
			st = g.spinf("What is the length of the arc of a [[circle%.0s|circular %s]] of radius $%d$ [[cut off|subtended]] by a central angle [[measuring|of]] $%d$ degrees?", g.pick("garden", "fountain", "pond", "track"), r, th)
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("An arc with central angle $\\theta$ degrees has length $\\frac{\\theta}{360} \\cdot 2\\pi r$. Here this is $\\frac{%d}{360} \\cdot 2\\pi \\cdot %d = %s$.", th, r, L.piTeX())
		return st, w, L.piTeX()
	case 1:
		A := q(th*r*r, 360)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Find|What is]] the area of a sector of a circle [[drawn by %s|on %s's worksheet]] with radius $%d$ and central angle $%d^\\circ$.", g.name(), r, th)
		case 1:
			st = sprintf("%s cuts a slice with a central angle of $%d^\\circ$ from a round %s of radius $%d$ cm. What is the area of the top of the slice, in square centimeters?", nm, th, g.pick("pizza", "cake", "pie", "cheese"), r)
		default:
			st = g.spinf("A lawn sprinkler [[in %s's garden|in the park%.0s]] waters a sector of radius $%d$ meters, turning through an angle of $%d^\\circ$. What area [[does it water|is watered]]?", g.name(), r, th)
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("A sector with central angle $\\theta$ degrees has area $\\frac{\\theta}{360} \\cdot \\pi r^2$. Here this is $\\frac{%d}{360} \\cdot \\pi \\cdot %d^2 = %s$.", th, r, A.piTeX())
		return st, w, A.piTeX()
	default:
		L := q(th*r, 180)
		ans := itoa(2*r) + " + " + L.piTeX()
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A sector of a circle [[drawn by %s|on %s's worksheet]] has radius $%d$ and central angle $%d^\\circ$. [[Find|What is]] its perimeter.", g.name(), r, th)
		case 1:
			st = sprintf("%s bends wire into the boundary of a sector with radius $%d$ cm and central angle $%d^\\circ$. How much wire, in centimeters, is used?", nm, r, th)
		default:
			st = g.spinf("What is the perimeter of a circular sector [[cut from a %s|%.0s]] whose radius is $%d$ and whose central angle [[is|measures]] $%d$ degrees?", g.pick("pizza", "sheet of paper", "disk"), r, th)
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("The boundary consists of two radii and an arc. The arc has length $\\frac{%d}{360} \\cdot 2\\pi \\cdot %d = %s$, so the perimeter is $2 \\cdot %d + %s = %s$.", th, r, L.piTeX(), r, L.piTeX(), ans)
		return st, w, ans
	}
}

func genShoelace(g *gen) (string, string, string) {
	var p [3][2]int64
	var cross int64
	for cross == 0 {
		for k := range p {
			p[k] = [2]int64{g.n64(-10, 10), g.n64(-10, 10)}
		}
		cross = (p[1][0]-p[0][0])*(p[2][1]-p[0][1]) - (p[2][0]-p[0][0])*(p[1][1]-p[0][1])
	}
	A := q(abs64(cross), 2)
	pts := make([]string, 3)
	for k := range p {
		pts[k] = sprintf("(%d, %d)", p[k][0], p[k][1])
	}
	var st string
	switch g.intn(4) {
	case 0:
		st = g.spinf("[[Find|What is]] the area of the triangle [[with vertices|whose vertices are]] $%s$, $%s$ and $%s$.", pts[0], pts[1], pts[2])
	case 1:
		st = sprintf("The points $A%s$, $B%s$ and $C%s$ form a triangle. What is its area?", pts[0], pts[1], pts[2])
	case 2:
		st = sprintf("%s marks the points $%s$, $%s$ and $%s$ on graph paper and joins them to form a triangle. How many square units does the triangle enclose?", g.name(), pts[0], pts[1], pts[2])
	default:
		st = g.spinf("[[Compute|Find]] the area of triangle $PQR$ [[where|with]] $P = %s$, $Q = %s$ and $R = %s$.", pts[0], pts[1], pts[2])
	}
	s1 := p[0][0]*p[1][1] + p[1][0]*p[2][1] + p[2][0]*p[0][1]
	s2 := p[0][1]*p[1][0] + p[1][1]*p[2][0] + p[2][1]*p[0][0]
	w := sprintf("By the shoelace formula, the area is $\\frac{1}{2}\\left|x_1y_2 + x_2y_3 + x_3y_1 - y_1x_2 - y_2x_3 - y_3x_1\\right|$. Here $x_1y_2 + x_2y_3 + x_3y_1 = %d$ and $y_1x_2 + y_2x_3 + y_3x_1 = %d$, so the area is $\\frac{1}{2}|%d - %s| = \\frac{%d}{2} = %s$.",
		s1, s2, s1, paren(s2), abs64(s1-s2), A.tex())
	return st, w, A.tex()
}

// quads lists boxes a ≤ b ≤ c ≤ 24 with an integer space diagonal.
var quads = func() [][4]int64 {
	var out [][4]int64
	for a := int64(1); a <= 24; a++ {
		for b := a; b <= 24; b++ {
			for c := b; c <= 24; c++ {
				d2 := a*a + b*b + c*c
				d := isqrtFast(d2)
				if d*d == d2 {
					out = append(out, [4]int64{a, b, c, d})
				}
			}
		}
	}
	return out
}()

func genBox(g *gen) (string, string, string) {
	nm := g.name()
	switch g.intn(3) {
	case 0:
		t := quads[g.intn(len(quads))]
		v := g.shuffled3(t[0], t[1], t[2])
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A rectangular box [[owned by %s|in %s's garage|used by %s]] has dimensions $%d \\times %d \\times %d$. [[Find|What is]] the length of its space diagonal.", nm, v[0], v[1], v[2])
		case 1:
			st = sprintf("%s wants to fit a thin straight rod into a closed box measuring $%d$ cm by $%d$ cm by $%d$ cm. What is the longest rod, in centimeters, that fits inside?", nm, v[0], v[1], v[2])
		default:
			st = g.spinf("What is the distance between opposite corners of a rectangular [[prism|box|crate]] with edge lengths $%d$, $%d$ and $%d$ %s?", v[0], v[1], v[2], g.pick("units", "cm", "inches", "feet"))
		}
		w := sprintf("The space diagonal of a box with edges $a$, $b$, $c$ is $\\sqrt{a^2 + b^2 + c^2} = \\sqrt{%d + %d + %d} = \\sqrt{%d} = %d$.", v[0]*v[0], v[1]*v[1], v[2]*v[2], t[3]*t[3], t[3])
		return st, w, itoa(t[3])
	case 1:
		a, b, c := g.n64(2, 25), g.n64(2, 25), g.n64(2, 25)
		S := 2 * (a*b + b*c + c*a)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Find|What is]] the total surface area of a rectangular box [[with|having]] length $%d$, width $%d$ and height $%d$ %s.", a, b, c, g.pick("units", "cm", "inches", "feet"))
		case 1:
			st = sprintf("%s is wrapping a gift box that measures $%d$ cm by $%d$ cm by $%d$ cm. Ignoring overlaps, how many square centimeters of paper cover it exactly?", nm, a, b, c)
		default:
			st = sprintf("How much %s is needed to coat every face of a closed rectangular crate of dimensions $%d$ by $%d$ by $%d$ feet, measured in square feet?", g.pick("paint", "varnish", "sealant"), a, b, c)
		}
		w := sprintf("A box has two faces of each of the three sizes, so its surface area is $2(ab + bc + ca) = 2(%d + %d + %d) = %d$.", a*b, b*c, c*a, S)
		return st, w, itoa(S)
	default:
		a, b, c := g.n64(2, 20), g.n64(2, 20), g.n64(2, 20)
		V := a * b * c
		S := 2 * (a*b + b*c + c*a)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A rectangular box [[owned by %s|in %s's room]] has volume $%d$, length $%d$ and width $%d$. What is its [[total|]] surface area?", nm, V, a, b)
		case 1:
			st = sprintf("%s's aquarium is a closed rectangular box holding $%d$ cubic inches. Its base is $%d$ inches by $%d$ inches. Find its total surface area in square inches.", nm, V, a, b)
		default:
			st = g.spinf("The volume of a rectangular prism is $%d$ and two of its edges [[measure|are]] $%d$ and $%d$. [[Compute|Find]] the total area of its six faces [[in square units|]].", V, a, b)
		}
		w := sprintf("The third edge is $\\frac{%d}{%d \\cdot %d} = %d$. The surface area is $2(%d \\cdot %d + %d \\cdot %d + %d \\cdot %d) = 2(%d) = %d$.", V, a, b, c, a, b, b, c, c, a, a*b+b*c+c*a, S)
		return st, w, itoa(S)
	}
}

func genSolidVolume(g *gen) (string, string, string) {
	nm := g.name()
	r, h := g.n64(2, 15), g.n64(2, 30)
	switch g.intn(4) {
	case 0:
		V := qi(r * r * h)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Find|What is]] the volume of a cylinder [[with|having]] radius $%d$ and height $%d$ %s.", r, h, g.pick("units", "cm", "inches", "meters"))
		case 1:
			st = sprintf("%s's cylindrical %s has an inner radius of $%d$ cm and a height of $%d$ cm. How many cubic centimeters does it hold?", nm, g.pick("vase", "water tank", "storage can", "flower pot"), r, h)
		default:
			st = g.spinf("What is the volume of a right circular [[cylinder|tank]] [[built by %s|in %s's yard]] whose base radius is $%d$ and whose height is $%d$?", nm, r, h)
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("The volume of a cylinder is $\\pi r^2 h = \\pi \\cdot %d^2 \\cdot %d = %s$.", r, h, V.piTeX())
		return st, w, V.piTeX()
	case 1:
		V := q(r*r*h, 3)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A right circular cone [[made by %s|on %s's desk]] has base radius $%d$ and height $%d$. [[Find|What is]] its volume.", nm, r, h)
		case 1:
			st = sprintf("%s fills a conical %s of radius $%d$ cm and height $%d$ cm with %s. What volume does it hold?", nm, g.pick("paper cup", "funnel", "mold"), r, h, g.pick("water", "sand", "batter"))
		default:
			st = g.spinf("What is the volume of a [[cone%.0s|conical %s]] whose base has radius $%d$ and whose apex is $%d$ units above the base?", g.pick("tent", "hat", "pile of sand"), r, h)
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("The volume of a cone is $\\frac{1}{3}\\pi r^2 h = \\frac{1}{3}\\pi \\cdot %d^2 \\cdot %d = %s$.", r, h, V.piTeX())
		return st, w, V.piTeX()
	case 2:
		V := q(4*r*r*r, 3)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Find|What is]] the volume of a [[sphere%.0s|spherical %s]] of radius $%d$ %s.", g.pick("tank", "ornament", "globe"), r, g.pick("units", "cm", "inches", "meters"))
		case 1:
			st = sprintf("%s inflates a spherical balloon until its radius is $%d$ cm. What is the volume of air inside, in cubic centimeters?", nm, r)
		default:
			st = g.spinf("A solid [[ball|sphere]] [[owned by %s|on %s's shelf]] has diameter $%d$ %s. What is its volume?", nm, 2*r, g.pick("units", "cm", "inches"))
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("The volume of a sphere is $\\frac{4}{3}\\pi r^3$ with $r = %d$, giving $\\frac{4}{3}\\pi \\cdot %d = %s$.", r, r*r*r, V.piTeX())
		return st, w, V.piTeX()
	default:
		R := g.n64(2, 15)
		H := q(r*r*h, 3*R*R)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A cone of radius $%d$ and height $%d$ is full of [[water|oil|juice]]. [[The liquid|All of it]] is poured into an empty cylinder of radius $%d$. How deep is the [[liquid|level]] in the cylinder?", r, h, R)
		case 1:
			st = sprintf("%s pours all the juice from a full conical glass with radius $%d$ cm and height $%d$ cm into a cylindrical jar with radius $%d$ cm. What is the height of the juice in the jar, in centimeters?", nm, r, h, R)
		default:
			st = sprintf("Sand filling a conical mold of base radius $%d$ and height $%d$ is emptied into a cylindrical can of radius $%d$. To what height does the sand fill the can?", r, h, R)
		}
		w := sprintf("The volume is $\\frac{1}{3}\\pi \\cdot %d^2 \\cdot %d = %s$. In the cylinder it occupies height $d$ with $\\pi \\cdot %d^2 \\cdot d = %s$, so $d = \\frac{%d \\cdot %d}{3 \\cdot %d} = %s$.",
			r, h, q(r*r*h, 3).piTeX(), R, q(r*r*h, 3).piTeX(), r*r, h, R*R, H.tex())
		return st, w, H.tex()
	}
}

func genLatticeSegment(g *gen) (string, string, string) {
	d := g.n64(2, 15)
	var u, v int64
	for {
		u, v = g.n64(-9, 9), g.n64(-9, 9)
		if gcd64(u, v) == 1 && u != 0 && v != 0 {
			break
		}
	}
	x1, y1 := g.n64(-20, 20), g.n64(-20, 20)
	x2, y2 := x1+d*u, y1+d*v
	P, Q := sprintf("(%d, %d)", x1, y1), sprintf("(%d, %d)", x2, y2)
	incl := g.chance(0.6)
	var st string
	if incl {
		switch g.intn(3) {
		case 0:
			st = g.spinf("How many points with integer coordinates lie on the segment joining $%s$ and $%s$, [[including|counting]] the endpoints?", P, Q)
		case 1:
			st = g.spinf("[[Find|What is]] the number of lattice points on the closed [[line segment|segment]] from $%s$ to $%s$.", P, Q)
		default:
			st = sprintf("%s stretches a string straight from the grid point $%s$ to the grid point $%s$. Counting both ends, how many grid points does the string pass through?", g.name(), P, Q)
		}
	} else {
		switch g.intn(3) {
		case 0:
			st = g.spinf("How many lattice points lie strictly between $%s$ and $%s$ on the segment [[joining|connecting]] them?", P, Q)
		case 1:
			st = g.spinf("[[Excluding|Not counting]] the endpoints, how many points with integer coordinates are on the segment from $%s$ to $%s$?", P, Q)
		default:
			st = sprintf("%s draws the segment from $%s$ to $%s$. Not counting its endpoints, how many points of the segment have both coordinates integers?", g.name(), P, Q)
		}
	}
	dx, dy := x2-x1, y2-y1
	gg := gcd64(dx, dy)
	w := sprintf("The segment has horizontal change $%d$ and vertical change $%d$. Lattice points on it occur at equal steps of $\\left(\\frac{%d}{%d}, \\frac{%d}{%d}\\right)$ with $\\gcd(%d, %d) = %d$, so the segment is divided into $%d$ equal pieces and contains $%d + 1 = %d$ lattice points including the endpoints.",
		dx, dy, dx, gg, dy, gg, abs64(dx), abs64(dy), gg, gg, gg, gg+1)
	if incl {
		return st, w, itoa(gg + 1)
	}
	w += sprintf(" Excluding the two endpoints leaves $%d$.", gg-1)
	return st, w, itoa(gg - 1)
}
