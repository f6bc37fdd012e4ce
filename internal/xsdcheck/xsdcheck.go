// Package xsdcheck checks an XML document against the element and attribute declarations
// of a W3C XML Schema (XSD) file, read from the file itself: which elements exist, which
// children each may hold, whether it may hold text, which attributes it may carry, which
// are required, and the patterns of their simple types.
//
// It exists because Go has no well-kept XSD validator (the maintained ones wrap libxml2
// through cgo), and the schemas it reads, such as Jenkins' junit-10.xsd
// (testdata/schemas), use a small part of XSD. Type names are read with the prefix xs for
// the XSD namespace, as those schemas write them. What it reads: global and local
// xs:element (name, ref, type), xs:complexType (named or inline, mixed), xs:sequence and
// xs:choice (their elements, at any depth), xs:attribute (name, type, use="required"),
// and xs:simpleType restrictions of xs:string by xs:pattern. What it does not check: the
// order of a sequence's children and minOccurs/maxOccurs (children may come in any order
// and number), namespaces (it reads schemas without a target namespace), and every other
// XSD construct, which Load refuses rather than ignores, so a schema it cannot read is an
// error and not a check that passes.
package xsdcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

const xsdNS = "http://www.w3.org/2001/XMLSchema"

// Schema is what an XSD file declares.
type Schema struct {
	// Elements are the global element declarations by name: the roots a document may have.
	Elements map[string]*Element
}

// Element is one element declaration.
type Element struct {
	Name string
	// Text says the element may hold text (a simple type, or mixed content).
	Text bool
	// Attrs are its attributes by name.
	Attrs map[string]Attribute
	// Children are the elements it may hold, by name.
	Children map[string]*Element
}

// Attribute is one attribute declaration.
type Attribute struct {
	Required bool
	// Pattern, when the attribute's type restricts xs:string by a pattern, is that pattern
	// anchored at both ends (XSD patterns match the whole value).
	Pattern *regexp.Regexp
}

// node is the XSD file as a tree of xs: elements.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// Load reads the XSD file at path.
func Load(path string) (*Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse reads an XSD document.
func Parse(data []byte) (*Schema, error) {
	var root node
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if root.XMLName.Space != xsdNS || root.XMLName.Local != "schema" {
		return nil, fmt.Errorf("the root is %s %s, not xs:schema", root.XMLName.Space, root.XMLName.Local)
	}
	if root.attr("targetNamespace") != "" {
		return nil, errors.New("a target namespace is not supported")
	}
	p := parser{
		globals:  map[string]node{},
		complex:  map[string]node{},
		simple:   map[string]*regexp.Regexp{},
		elements: map[string]*Element{},
	}
	for _, n := range root.Children {
		if n.XMLName.Space != xsdNS {
			return nil, fmt.Errorf("unexpected %s in xs:schema", n.XMLName.Local)
		}
		name := n.attr("name")
		switch n.XMLName.Local {
		case "element":
			p.globals[name] = n
		case "complexType":
			p.complex[name] = n
		case "simpleType":
			re, err := simplePattern(n)
			if err != nil {
				return nil, fmt.Errorf("simpleType %s: %w", name, err)
			}
			p.simple[name] = re
		case "annotation":
		default:
			return nil, fmt.Errorf("xs:%s is not supported", n.XMLName.Local)
		}
	}
	s := &Schema{Elements: map[string]*Element{}}
	for name := range p.globals {
		el, err := p.global(name)
		if err != nil {
			return nil, err
		}
		s.Elements[name] = el
	}
	return s, nil
}

type parser struct {
	globals  map[string]node
	complex  map[string]node
	simple   map[string]*regexp.Regexp
	elements map[string]*Element // global elements built (or being built: recursion)
}

// global builds the global element name once; a reference to it from within itself (a
// testsuite within a testsuite) gets the same value.
func (p *parser) global(name string) (*Element, error) {
	if el, ok := p.elements[name]; ok {
		return el, nil
	}
	n, ok := p.globals[name]
	if !ok {
		return nil, fmt.Errorf("no global element %q", name)
	}
	el := &Element{Name: name}
	p.elements[name] = el
	return el, p.fill(el, n)
}

// fill completes el from its declaration n (an xs:element).
func (p *parser) fill(el *Element, n node) error {
	el.Attrs, el.Children = map[string]Attribute{}, map[string]*Element{}
	if t := n.attr("type"); t != "" {
		if len(n.Children) > 0 {
			return fmt.Errorf("element %s has both a type and a content", el.Name)
		}
		switch {
		case t == "xs:string":
			el.Text = true
			return nil
		case p.simple[t] != nil:
			el.Text = true
			return nil
		}
		ct, ok := p.complex[t]
		if !ok {
			return fmt.Errorf("element %s: type %s is not supported", el.Name, t)
		}
		return p.complexType(el, ct)
	}
	for _, c := range n.Children {
		switch c.XMLName.Local {
		case "complexType":
			if err := p.complexType(el, c); err != nil {
				return err
			}
		case "annotation":
		default:
			return fmt.Errorf("element %s: xs:%s is not supported", el.Name, c.XMLName.Local)
		}
	}
	return nil
}

// complexType adds the content and attributes of the complex type n to el.
func (p *parser) complexType(el *Element, n node) error {
	el.Text = el.Text || n.attr("mixed") == "true"
	for _, c := range n.Children {
		switch c.XMLName.Local {
		case "sequence", "choice":
			if err := p.group(el, c); err != nil {
				return err
			}
		case "attribute":
			name := c.attr("name")
			if name == "" {
				return fmt.Errorf("element %s: an attribute without a name", el.Name)
			}
			a := Attribute{Required: c.attr("use") == "required"}
			switch t := c.attr("type"); {
			case t == "xs:string" || t == "":
			case p.simple[t] != nil:
				a.Pattern = p.simple[t]
			default:
				return fmt.Errorf("element %s: attribute %s: type %s is not supported", el.Name, name, t)
			}
			el.Attrs[name] = a
		case "annotation":
		default:
			return fmt.Errorf("element %s: xs:%s is not supported", el.Name, c.XMLName.Local)
		}
	}
	return nil
}

// group adds the elements of a sequence or choice (and of the groups within it) as
// children of el.
func (p *parser) group(el *Element, n node) error {
	for _, c := range n.Children {
		switch c.XMLName.Local {
		case "sequence", "choice":
			if err := p.group(el, c); err != nil {
				return err
			}
		case "element":
			if ref := c.attr("ref"); ref != "" {
				child, err := p.global(ref)
				if err != nil {
					return fmt.Errorf("element %s: %w", el.Name, err)
				}
				el.Children[ref] = child
				continue
			}
			child := &Element{Name: c.attr("name")}
			if child.Name == "" {
				return fmt.Errorf("element %s: a child without a name or ref", el.Name)
			}
			if err := p.fill(child, c); err != nil {
				return err
			}
			el.Children[child.Name] = child
		case "annotation":
		default:
			return fmt.Errorf("element %s: xs:%s is not supported", el.Name, c.XMLName.Local)
		}
	}
	return nil
}

// simplePattern reads a simple type that restricts xs:string by one or more patterns (XSD
// ORs the patterns of one restriction).
func simplePattern(n node) (*regexp.Regexp, error) {
	if len(n.Children) != 1 || n.Children[0].XMLName.Local != "restriction" || n.Children[0].attr("base") != "xs:string" {
		return nil, errors.New("only a restriction of xs:string is supported")
	}
	var pats []string
	for _, f := range n.Children[0].Children {
		if f.XMLName.Local != "pattern" {
			return nil, fmt.Errorf("facet xs:%s is not supported", f.XMLName.Local)
		}
		pats = append(pats, "(?:"+f.attr("value")+")")
	}
	if len(pats) == 0 {
		return nil, errors.New("a restriction without a pattern")
	}
	return regexp.Compile(`^(?:` + strings.Join(pats, "|") + `)$`)
}

// Check checks data, an XML document, against the schema: its root is a global element,
// every element stands where its parent allows it, holds text only where allowed, carries
// only declared attributes, every required one, each matching its type's pattern. It
// returns every violation found, each with the path of the element; none when it conforms.
func (s *Schema) Check(data []byte) []error {
	var errs []error
	d := xml.NewDecoder(bytes.NewReader(data))
	type open struct {
		el   *Element
		path string
	}
	var stack []open
	roots := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(errs, fmt.Errorf("not well-formed XML: %w", err))
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			var el *Element
			path := "/" + name
			if len(stack) == 0 {
				roots++
				el = s.Elements[name]
				if el == nil {
					errs = append(errs, fmt.Errorf("%s: the root is not an element the schema declares", path))
				}
			} else {
				top := stack[len(stack)-1]
				path = top.path + path
				if top.el != nil {
					el = top.el.Children[name]
					if el == nil {
						errs = append(errs, fmt.Errorf("%s: %s may not hold %s (allowed: %s)", path, top.el.Name, name, strings.Join(keys(top.el.Children), ", ")))
					}
				}
			}
			if el != nil {
				errs = append(errs, el.checkAttrs(path, tok.Attr)...)
			}
			stack = append(stack, open{el, path})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				if top.el != nil && !top.el.Text && strings.TrimSpace(string(tok)) != "" {
					errs = append(errs, fmt.Errorf("%s: text within %s, which holds only elements", top.path, top.el.Name))
				}
			}
		}
	}
	if roots != 1 {
		errs = append(errs, fmt.Errorf("%d root elements, want 1", roots))
	}
	return errs
}

func (el *Element) checkAttrs(path string, attrs []xml.Attr) []error {
	var errs []error
	seen := map[string]bool{}
	for _, a := range attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		decl, ok := el.Attrs[a.Name.Local]
		if !ok || a.Name.Space != "" {
			errs = append(errs, fmt.Errorf("%s: attribute %s is not declared for %s (declared: %s)", path, a.Name.Local, el.Name, strings.Join(keys(el.Attrs), ", ")))
			continue
		}
		seen[a.Name.Local] = true
		if decl.Pattern != nil && !decl.Pattern.MatchString(a.Value) {
			errs = append(errs, fmt.Errorf("%s: attribute %s=%q does not match its type's pattern %s", path, a.Name.Local, a.Value, decl.Pattern))
		}
	}
	for _, name := range keys(el.Attrs) {
		if el.Attrs[name].Required && !seen[name] {
			errs = append(errs, fmt.Errorf("%s: the required attribute %s is missing", path, name))
		}
	}
	return errs
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
