package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Section is one stage's own part of the run config, the mapping under its
// name. The stage's declaration (jobs/<stage>/decl) defines the type with
// its defaults and validation; another stage that reads it imports that
// declaration. The config only decodes it, checks its keys and prints it.
type Section interface {
	// Defaults fills in unset fields. c is the whole config, the core's
	// defaults applied, so a default may follow a shared key.
	Defaults(c *Config)
	// Validate reports every problem with bad, each naming its key
	// ("dedup.threshold: 1.5 must be in (0, 1]").
	Validate(c *Config, bad func(format string, a ...any))
}

// Def names a stage's section and makes its value; SectionOf[T] makes one.
type Def interface {
	// SectionName is the top-level key of the section.
	SectionName() string
	newSection() Section
}

// SectionOf is the Def of the section named Name, of type T; *T must be
// a Section.
type SectionOf[T any] struct{ Name string }

// SectionName implements Def.
func (d SectionOf[T]) SectionName() string { return d.Name }

func (d SectionOf[T]) newSection() Section {
	s, ok := any(new(T)).(Section)
	if !ok {
		panic(fmt.Sprintf("config: section %q: *%T has no Defaults and Validate methods", d.Name, *new(T)))
	}
	return s
}

// Of returns the section in c. It panics when c was loaded without it: a
// stage always loads the config with its own section, so that is a bug.
// On a step's view (View) it panics with an *UndeclaredError when the step
// did not declare the section: what a step reads and what its manifests
// hash must be the same keys.
func (d SectionOf[T]) Of(c *Config) *T {
	if c.view != nil && !c.view.sections[d.Name] {
		panic(&UndeclaredError{Step: c.view.step, Section: d.Name})
	}
	s, ok := c.sections[d.Name]
	if !ok {
		panic(fmt.Sprintf("config: section %q was not loaded (pass its Def to config.Load or config.Parse)", d.Name))
	}
	return any(s).(*T)
}

// Sections lists the names of the stage sections the config holds.
func (c *Config) Sections() []string { return slices.Clone(c.names) }

func (c *Config) addSections(defs []Def) {
	if c.sections == nil {
		c.sections = map[string]Section{}
	}
	for _, d := range defs {
		n := d.SectionName()
		if _, dup := c.sections[n]; dup {
			continue
		}
		if _, core := coreFields()[n]; core {
			panic(fmt.Sprintf("config: section %q has the name of a core key", n))
		}
		c.sections[n] = d.newSection()
		c.names = append(c.names, n)
	}
}

// coreFields maps the core's top-level keys to their types.
func coreFields() map[string]reflect.Type {
	t := reflect.TypeOf(Config{})
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if name := strings.Split(f.Tag.Get("yaml"), ",")[0]; name != "" && name != "-" {
			out[name] = f.Type
		}
	}
	return out
}

// decode fills the core and the sections from the document's top-level
// mapping and returns every unknown key and decoding problem.
func (c *Config) decode(doc *yaml.Node) []string {
	if doc.Kind != yaml.MappingNode {
		return []string{fmt.Sprintf("line %d: the config must be a mapping of keys (run:, root:, ...)", doc.Line)}
	}
	core := coreFields()
	var problems []string
	coreDoc := &yaml.Node{Kind: yaml.MappingNode, Tag: doc.Tag, Line: doc.Line, Column: doc.Column}
	first := map[string]int{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if line, dup := first[k.Value]; dup {
			problems = append(problems, fmt.Sprintf("line %d: key %s given twice (first at line %d)", k.Line, k.Value, line))
			continue
		}
		first[k.Value] = k.Line
		if t, ok := core[k.Value]; ok {
			problems = append(problems, movedOrUnknown(v, t, k.Value)...)
			coreDoc.Content = append(coreDoc.Content, k, v)
			continue
		}
		if s, ok := c.sections[k.Value]; ok {
			problems = append(problems, movedOrUnknown(v, reflect.TypeOf(s), k.Value)...)
			if err := v.Decode(s); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", k.Value, err))
			}
			continue
		}
		valid := map[string]bool{}
		for n := range core {
			valid[n] = true
		}
		for _, n := range c.names {
			valid[n] = true
		}
		problems = append(problems, fmt.Sprintf("line %d: unknown key %s (valid here: %s)", k.Line, k.Value, strings.Join(sortedKeys(valid), ", ")))
	}
	if len(problems) > 0 {
		return problems
	}
	if err := coreDoc.Decode(c); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// stepView is what View lets a step read.
type stepView struct {
	step     string
	sections map[string]bool
}

// View is c as one step sees it: Of refuses every stage section but those
// keys name (the step's declared config keys — its own section and what
// its stage Uses — whose values its manifests record and hash), so that a
// step reading a section it did not declare fails at once, in a test,
// rather than going stale silently when that section changes. The view
// shares c's sections; neither is changed.
func (c *Config) View(step string, keys []string) *Config {
	v := *c
	v.view = &stepView{step: step, sections: map[string]bool{}}
	for _, k := range keys {
		top, _, _ := strings.Cut(k, ".")
		top, _, _ = strings.Cut(top, "[")
		v.view.sections[top] = true
	}
	return &v
}

// UndeclaredError is a step reading a config section it did not declare:
// a bug in the stage, whose manifests would not record what determined its
// bytes.
type UndeclaredError struct {
	Step, Section string
}

func (e *UndeclaredError) Error() string {
	return fmt.Sprintf("config: %s read the %s: section, which it does not declare: add the keys it reads to the stage's Uses, so that its manifests record them and a change makes it stale", e.Step, e.Section)
}
