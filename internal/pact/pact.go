// Package pact reads and writes Pact files, the consumer contracts of the Pact ecosystem
// (https://github.com/pact-foundation/pact-specification): version 4 is written, versions
// 2, 3 and 4 are read (what pact-js, pact-go and pact-jvm write), into one model, and the
// response matchers of a pact are applied to an answer (match.go). It is the format only:
// it imports nothing of the module, so that the reference server writes the same format the
// harness reads. Judging a pact against a description is conformance/pact/check's.
package pact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
)

// SpecVersion is the version of the Pact specification Write writes.
const SpecVersion = "4.0"

// Pact is one consumer's contract with one provider.
type Pact struct {
	Consumer string
	Provider string
	// Interactions are the HTTP interactions, in the file's order; other kinds of v4
	// interaction (messages) are not read.
	Interactions []Interaction
	// Version is the Pact specification version the file declared ("2.0.0", "3.0.0", "4.0").
	Version string
}

// Interaction is one request the consumer sends and the answer it relies on.
type Interaction struct {
	Description string
	States      []State
	Request     Request
	Response    Response
}

// State is a provider state: what the provider must hold before the request.
type State struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
}

// Request is what the consumer sends. Path is the path as sent, base path included; Query
// holds each parameter's values in order.
type Request struct {
	Method  string
	Path    string
	Query   map[string][]string
	Headers map[string][]string
	Body    json.RawMessage // nil: no body
	Rules   Rules
	// Generators are the request's generators as the file holds them (v3, v4): a path
	// taken from a provider state's values, say. This package keeps them, never runs them.
	Generators json.RawMessage
}

// Response is what the consumer expects, with the matchers that loosen its values.
type Response struct {
	Status  int
	Headers map[string][]string
	Body    json.RawMessage // nil: none expected
	Rules   Rules
}

// Rules are matching rules by category ("body", "header", "query", "path") and, within
// one, by path expression ("$.id", "$[*].name") or header or parameter name ("" for the
// path category, which has one list).
type Rules map[string]map[string]RuleList

// RuleList is the matchers of one place and how they combine ("AND", the default, or "OR").
type RuleList struct {
	Combine  string    `json:"combine,omitempty"`
	Matchers []Matcher `json:"matchers"`
}

// Matcher is one matching rule: Match names it ("type", "integer", "regex", ...); the other
// fields are its parameters.
type Matcher struct {
	Match string `json:"match"`
	Regex string `json:"regex,omitempty"`
	Min   *int   `json:"min,omitempty"`
	Max   *int   `json:"max,omitempty"`
	Value any    `json:"value,omitempty"`
}

// RawQuery returns the request's query string as a client sends it: parameters sorted by
// name, each name's values in order.
func (r Request) RawQuery() string {
	names := make([]string, 0, len(r.Query))
	for n := range r.Query {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		for _, v := range r.Query[n] {
			parts = append(parts, url.QueryEscape(n)+"="+url.QueryEscape(v))
		}
	}
	return strings.Join(parts, "&")
}

// Header returns the first value of a header, its name in any letter case.
func Header(h map[string][]string, name string) string {
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// ReadFile reads a pact file of any version from 2 to 4.
func ReadFile(path string) (*Pact, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// file is a pact file of any version, as JSON.
type file struct {
	Consumer     struct{ Name string } `json:"consumer"`
	Provider     struct{ Name string } `json:"provider"`
	Interactions []rawInteraction      `json:"interactions"`
	Metadata     map[string]json.RawMessage
}

type rawInteraction struct {
	Type           string          `json:"type"`
	Description    string          `json:"description"`
	ProviderState  string          `json:"providerState"`  // v1, v2
	ProviderStates []State         `json:"providerStates"` // v3, v4
	Request        rawPart         `json:"request"`
	Response       rawPart         `json:"response"`
	Contents       json.RawMessage `json:"contents"` // messages: not read
}

type rawPart struct {
	Method        string                     `json:"method"`
	Path          string                     `json:"path"`
	Query         json.RawMessage            `json:"query"`
	Headers       map[string]json.RawMessage `json:"headers"`
	Body          json.RawMessage            `json:"body"`
	Status        int                        `json:"status"`
	MatchingRules json.RawMessage            `json:"matchingRules"`
	Generators    json.RawMessage            `json:"generators"`
}

// Read reads a pact of any version from 2 to 4.
func Read(data []byte) (*Pact, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a pact file: %w", err)
	}
	p := &Pact{Consumer: f.Consumer.Name, Provider: f.Provider.Name, Version: specVersion(f.Metadata)}
	v4 := strings.HasPrefix(p.Version, "4")
	for i, ri := range f.Interactions {
		if ri.Type != "" && ri.Type != "Synchronous/HTTP" {
			continue // a message interaction: nothing to send over HTTP
		}
		in, err := ri.read(v4)
		if err != nil {
			return nil, fmt.Errorf("interaction %d (%q): %w", i+1, ri.Description, err)
		}
		p.Interactions = append(p.Interactions, in)
	}
	if len(p.Interactions) == 0 {
		return nil, errors.New("the pact holds no HTTP interaction")
	}
	return p, nil
}

// specVersion is the version the metadata declares: pactSpecification (v3 and v4) or
// pact-specification (v2); "2.0.0" when none says.
func specVersion(meta map[string]json.RawMessage) string {
	for _, key := range []string{"pactSpecification", "pact-specification", "pactSpecificationVersion"} {
		raw, ok := meta[key]
		if !ok {
			continue
		}
		var v struct{ Version string }
		if json.Unmarshal(raw, &v) == nil && v.Version != "" {
			return v.Version
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return "2.0.0"
}

func (ri rawInteraction) read(v4 bool) (Interaction, error) {
	in := Interaction{Description: ri.Description, States: ri.ProviderStates}
	if ri.ProviderState != "" {
		in.States = append(in.States, State{Name: ri.ProviderState})
	}
	rq, rs := ri.Request, ri.Response
	if rq.Method == "" || !strings.HasPrefix(rq.Path, "/") {
		return in, errors.New("the request has no method or no path")
	}
	if rs.Status < 100 || rs.Status > 599 {
		return in, fmt.Errorf("the response status %d is no HTTP status", rs.Status)
	}
	in.Request = Request{Method: strings.ToUpper(rq.Method), Path: rq.Path}
	var err error
	if in.Request.Query, err = readQuery(rq.Query); err != nil {
		return in, err
	}
	if in.Request.Headers, in.Request.Body, in.Request.Rules, err = rq.common("request", v4); err != nil {
		return in, err
	}
	if len(rq.Generators) > 0 && string(rq.Generators) != "null" {
		in.Request.Generators = rq.Generators
	}
	in.Response = Response{Status: rs.Status}
	in.Response.Headers, in.Response.Body, in.Response.Rules, err = rs.common("response", v4)
	return in, err
}

// common reads what a request and a response share: the headers, the body, the rules.
func (rp rawPart) common(part string, v4 bool) (h map[string][]string, body json.RawMessage, rules Rules, err error) {
	if h, err = readHeaders(rp.Headers); err != nil {
		return nil, nil, nil, fmt.Errorf("%s headers: %w", part, err)
	}
	if body, err = readBody(rp.Body, v4); err != nil {
		return nil, nil, nil, fmt.Errorf("%s body: %w", part, err)
	}
	if rules, err = readRules(rp.MatchingRules); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", part, err)
	}
	return h, body, rules, nil
}

// readQuery reads a query as a string (v2) or a map of names to one value or a list (v3, v4).
func readQuery(raw json.RawMessage) (map[string][]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		q, err := url.ParseQuery(s)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", s, err)
		}
		return q, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("query: want a string or an object, got %s", raw)
	}
	return readHeaders(m)
}

// readHeaders reads names to a string (v2, v3) or a list of strings (v4).
func readHeaders(m map[string]json.RawMessage) (map[string][]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string][]string, len(m))
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[k] = []string{s}
			continue
		}
		var l []string
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("%s: want a string or a list of strings, got %s", k, raw)
		}
		out[k] = l
	}
	return out, nil
}

// readBody reads a body: the JSON value itself (v2, v3), or v4's {content, contentType,
// encoded}. A body that is not JSON is kept as a JSON string of its text.
func readBody(raw json.RawMessage, v4 bool) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if !v4 {
		return raw, nil
	}
	var b struct {
		Content     json.RawMessage `json:"content"`
		ContentType string          `json:"contentType"`
		Encoded     any             `json:"encoded"`
	}
	if err := json.Unmarshal(raw, &b); err != nil || b.Content == nil {
		return raw, nil // a v4 writer that wrote the value itself
	}
	var text string
	if json.Unmarshal(b.Content, &text) != nil {
		return b.Content, nil // a JSON value
	}
	switch enc := fmt.Sprint(b.Encoded); enc {
	case "false", "<nil>", "":
		if strings.Contains(b.ContentType, "json") && json.Valid([]byte(text)) {
			return json.RawMessage(text), nil // JSON written as a string
		}
		return b.Content, nil
	case "json":
		return json.RawMessage(text), nil
	default:
		return nil, fmt.Errorf("body encoded as %s is not read", enc)
	}
}

// readRules reads v3 and v4 rules ({"body": {"$.id": {"matchers": [...]}}}) and v2 rules
// ({"$.body.id": {"match": "type"}}).
func readRules(raw json.RawMessage) (Rules, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("matchingRules: %w", err)
	}
	out := Rules{}
	for key, v := range m {
		if strings.HasPrefix(key, "$") {
			if err := out.addV2(key, v); err != nil {
				return nil, err
			}
			continue
		}
		var direct RuleList
		if json.Unmarshal(v, &direct) == nil && direct.Matchers != nil {
			out.add(key, "", direct) // v3's "path": {"matchers": [...]}
			continue
		}
		var byPlace map[string]RuleList
		if err := json.Unmarshal(v, &byPlace); err != nil {
			return nil, fmt.Errorf("matchingRules.%s: %w", key, err)
		}
		for place, l := range byPlace {
			out.add(key, place, l)
		}
	}
	return out, nil
}

func (r Rules) add(category, place string, l RuleList) {
	if r[category] == nil {
		r[category] = map[string]RuleList{}
	}
	for i, m := range l.Matchers {
		if m.Match == "" { // v2's {"regex": ...} and {"min": n}
			l.Matchers[i].Match = "type"
			if m.Regex != "" {
				l.Matchers[i].Match = "regex"
			}
		}
	}
	r[category][place] = l
}

// addV2 files a v2 rule under its category: $.body.x is body $.x, $.headers.X header X,
// $.query.x query x, $.path the path.
func (r Rules) addV2(key string, v json.RawMessage) error {
	var m Matcher
	if err := json.Unmarshal(v, &m); err != nil {
		return fmt.Errorf("matchingRules[%q]: %w", key, err)
	}
	l := RuleList{Matchers: []Matcher{m}}
	switch {
	case key == "$.body" || strings.HasPrefix(key, "$.body.") || strings.HasPrefix(key, "$.body["):
		r.add("body", "$"+strings.TrimPrefix(key, "$.body"), l)
	case strings.HasPrefix(key, "$.headers."):
		r.add("header", strings.TrimPrefix(key, "$.headers."), l)
	case strings.HasPrefix(key, "$.query."):
		r.add("query", strings.TrimPrefix(key, "$.query."), l)
	case key == "$.path":
		r.add("path", "", l)
	}
	return nil
}

// Write writes p as a Pact specification v4 file, indented, in a stable order.
func Write(p *Pact) ([]byte, error) {
	type body struct {
		Content     json.RawMessage `json:"content"`
		ContentType string          `json:"contentType"`
		Encoded     bool            `json:"encoded"`
	}
	type request struct {
		Method        string              `json:"method"`
		Path          string              `json:"path"`
		Query         map[string][]string `json:"query,omitempty"`
		Headers       map[string][]string `json:"headers,omitempty"`
		Body          *body               `json:"body,omitempty"`
		MatchingRules Rules               `json:"matchingRules,omitempty"`
		Generators    json.RawMessage     `json:"generators,omitempty"`
	}
	type response struct {
		Status        int                 `json:"status"`
		Headers       map[string][]string `json:"headers,omitempty"`
		Body          *body               `json:"body,omitempty"`
		MatchingRules Rules               `json:"matchingRules,omitempty"`
	}
	type interaction struct {
		Type           string   `json:"type"`
		Description    string   `json:"description"`
		ProviderStates []State  `json:"providerStates,omitempty"`
		Request        request  `json:"request"`
		Response       response `json:"response"`
		Pending        bool     `json:"pending"`
	}
	type party struct {
		Name string `json:"name"`
	}
	out := struct {
		Consumer     party          `json:"consumer"`
		Provider     party          `json:"provider"`
		Interactions []interaction  `json:"interactions"`
		Metadata     map[string]any `json:"metadata"`
	}{Consumer: party{p.Consumer}, Provider: party{p.Provider}, Interactions: []interaction{},
		Metadata: map[string]any{"pactSpecification": map[string]string{"version": SpecVersion}}}
	jsonBody := func(raw json.RawMessage, headers map[string][]string) *body {
		if raw == nil {
			return nil
		}
		ct := Header(headers, "Content-Type")
		if ct == "" {
			ct = "application/json"
		}
		return &body{Content: raw, ContentType: ct, Encoded: false}
	}
	for _, in := range p.Interactions {
		rq, rs := in.Request, in.Response
		out.Interactions = append(out.Interactions, interaction{
			Type: "Synchronous/HTTP", Description: in.Description, ProviderStates: in.States,
			Request: request{Method: rq.Method, Path: rq.Path, Query: rq.Query, Headers: rq.Headers,
				Body: jsonBody(rq.Body, rq.Headers), MatchingRules: rq.Rules, Generators: rq.Generators},
			Response: response{Status: rs.Status, Headers: rs.Headers, Body: jsonBody(rs.Body, rs.Headers), MatchingRules: rs.Rules},
		})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalJSON writes a RuleList with its combine rule, AND when none is set.
func (l RuleList) MarshalJSON() ([]byte, error) {
	type plain RuleList
	if l.Combine == "" {
		l.Combine = "AND"
	}
	if l.Matchers == nil {
		l.Matchers = []Matcher{}
	}
	return json.Marshal(plain(l))
}

// MarshalJSON writes the path category as its one list ({"matchers": [...]}), as v4 does.
func (r Rules) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(r))
	for cat, places := range r {
		if l, ok := places[""]; ok && cat == "path" {
			m[cat] = l
			continue
		}
		m[cat] = map[string]RuleList(places)
	}
	return json.Marshal(m)
}

// Ints is n as the *int a Matcher's Min or Max takes.
func Ints(n int) *int { return &n }

// itoa is strconv.Itoa, for paths.
func itoa(n int) string { return strconv.Itoa(n) }

// KeyPlaceholder stands for the API key in a pact's Authorization header; a verifier puts
// the provider's key in its place (the same placeholder as the harness's curl lines).
const KeyPlaceholder = "$PETSTORE_API_KEY"

// Provider states of the pet store's pacts. StateAnimalExists has the animal's fields as
// params (id, name, categoryId, status): the id is the one the consumer saw, which a
// verifier replaces by the id of an animal it creates with those fields. StateNoAnimal has
// the id the consumer asked for, which a verifier replaces by one no animal has. A provider
// that sets a state up answers the id to use as StateID, which the request's path takes
// through a ProviderState generator (PathFromState).
const (
	StateAnimalExists = "an animal with the id exists"
	StateNoAnimal     = "no animal has the id"
	StateID           = "id"
)

// PathFromState is the generators of a request whose path ends in the id a provider state
// answers: prefix is the path before it ("/v1/pets/").
func PathFromState(prefix string) json.RawMessage {
	g, _ := json.Marshal(map[string]any{"path": map[string]string{
		"type": "ProviderState", "expression": prefix + "${" + StateID + "}", "dataType": "STRING"}})
	return g
}
