package anatomy

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// regions are the regions of a request in the order the page shows them.
var regions = []struct {
	where Where
	title string
}{
	{Method, "Method"}, {Target, "Target (the path)"}, {Query, "Query"}, {Header, "Header fields"}, {Body, "Body"}, {Framing, "Framing"},
}

// WriteMarkdown writes docs/anatomy.md: what the anatomy is and how the harness uses it, a
// table per region, what the default and the deep runs send, what is not covered and why,
// and the conventions of real stacks with their sources.
func WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	parts, conventions := Parts(), Conventions()
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }

	p("# The request's anatomy\n\n")
	p("<!-- Generated from conformance/anatomy by `go test ./conformance/anatomy -run TestMarkdown -update`; do not edit. -->\n\n")
	p("Every part of an HTTP request that a server, a framework or a front server in front of it may interpret " +
		"(the method, the target, the query, each header field, the body's media type, coding, size and framing) " +
		"is data in `conformance/anatomy`: where it is defined (an RFC section, a stack's documentation), the values that " +
		"exercise it (ordinary, odd, invalid, oversized at the limits real servers use) and what the interface document " +
		"makes of it. The case generator varies a valid request one part at a time from this data.\n\n")
	p("## How a part is judged\n\n")
	p("- **none**: the document gives the part no meaning, so the answer must not change: a create still creates " +
		"and stores what was sent, a listing is still the listing. A stack that reads the part for itself (a method " +
		"override, a format suffix, a forwarded host) is found out here.\n")
	p("- **fault**: the value makes the request faulty under the document: the documented status with an Error body.\n")
	p("- **open**: the document or the standards leave the answer open (a limit the document does not show, RFC " +
		"semantics a server may apply or ignore: Range, conditional requests, content negotiation): never a 5xx, " +
		"every error an Error record, no 2xx that contradicts the request.\n")
	p("- Whatever the part, without a valid key the answer is 401 with an Error body (READINGS: \"the key missing or " +
		"invalid and something else wrong too\" is a MUST 401). Each default value is therefore sent twice in every " +
		"operation it applies to: with the key and without.\n")
	p("- An **unsafe** part can change what a request does (a method override, a forwarding field, a path that climbs " +
		"out of the base): it is sent only where the changed request would touch the run's own animals.\n")
	p("- A value another family of generated cases sends already (the Content-Type and Accept variants, the forms of the " +
		"key, the repeated and unknown query parameters, the BOM and the 1 MiB body) says so (\"sent by\") and is not sent twice.\n")
	p("- A value that may address another resource than the operation (another target, Host or method) is judged " +
		"without a key as any 4xx with an Error record or a redirect, never a success; an `Expect` the HTTP layer answers " +
		"before any handler too. docs/readings.md gives the readings.\n\n")

	for _, r := range regions {
		p("## %s\n\n", r.title)
		p("| Part | Defined in | Meaning and why | Default values | Deep values |\n|---|---|---|---|---|\n")
		for _, part := range parts {
			if part.Where != r.where || part.NotSent != "" {
				continue
			}
			p("| %s | %s | %s | %s | %s |\n", partCell(part), escape(strings.Join(part.Defined, "; ")),
				"**"+part.Meaning.String()+"**: "+escape(part.Why), valuesCell(part, LevelDefault), valuesCell(part, LevelDeep))
		}
		p("\n")
	}

	p("## What the default run sends\n\n")
	writeCounts(b, parts, LevelDefault)
	p("Besides the anatomy, the default run sends every variant of the other families alone (body properties, the body " +
		"as a whole, Content-Type and Accept, query and path parameters, every form of the key, the key in each of twelve " +
		"places outside the Authorization field once), and sends every refused or open variant once without a valid " +
		"key, the two ways a request lacks one that take different paths through a stack taking turns: no Authorization " +
		"field, and a field holding a key the service does not hold. " +
		"`conformance list` prints each family's cases and requests.\n\n")
	p("Pairs of anatomy parts are sent only where the parts can interact (the `with` notes above: a media type and a " +
		"content coding, a method override and another method, a forwarded prefix and a trailing-slash redirect).\n\n")
	p("## What --depth deep adds\n\n")
	writeCounts(b, parts, LevelDeep)
	p("and every rejected form of the key (the scheme alone, another scheme, junk after the key, quotes, two fields, " +
		"the key without a scheme...) combined with every other variant, every pair covered, the key elsewhere beside a " +
		"wrong key and in those combinations too; `--fuzz N` adds random combinations and every triple. What the default " +
		"leaves out is therefore: the deep values above (the rarer forms, oversized fields beyond 16 KiB, the conditional " +
		"and range fields, most method and query forms, TRACE and unknown methods), each variant met with both kinds of " +
		"missing key and with the rarer forms of one (each of those forms is still sent alone), and the key elsewhere more " +
		"than once a place and operation.\n\n")

	p("## Not covered, and why\n\n")
	p("Recorded, not sent: Go's `net/http` client cannot send these (it refuses CR, LF and NUL in field values, " +
		"writes Host once, writes Content-Length and Transfer-Encoding itself, sends no obs-fold, no absolute or " +
		"asterisk form, no HTTP/1.0, no bare LF), or other rules cover them.\n\n")
	p("| Part | Defined in | Meaning and why | Not sent because |\n|---|---|---|---|\n")
	for _, part := range parts {
		if part.NotSent != "" {
			p("| %s | %s | %s | %s |\n", partCell(part), escape(strings.Join(part.Defined, "; ")),
				"**"+part.Meaning.String()+"**: "+escape(part.Why), escape(part.NotSent))
		}
	}
	p("\nConventions no part exercises:\n\n")
	for _, c := range conventions {
		if len(c.Parts) == 0 {
			p("- %s: %s. %s.\n", c.Stack, escape(strings.TrimSuffix(c.What, ".")), escape(strings.TrimSuffix(c.Why, ".")))
		}
	}

	p("\n## Conventions of real stacks\n\n")
	p("What stacks interpret beyond the standards, from their documentation. A source marked \"not verified\" " +
		"could not be confirmed from public documentation when the row was written.\n\n")
	p("| Stack | What it interprets | Parts | Source |\n|---|---|---|---|\n")
	for _, c := range conventions {
		ids := make([]string, len(c.Parts))
		for i, id := range c.Parts {
			ids[i] = "`" + id + "`"
		}
		if len(ids) == 0 {
			ids = []string{"none: " + escape(c.Why)}
		}
		p("| %s | %s | %s | %s |\n", escape(c.Stack), escape(c.What), strings.Join(ids, ", "), escape(c.Source))
	}
	return b.Flush()
}

// writeCounts says how many values of a level the data holds, region by region.
func writeCounts(w io.Writer, parts []Part, level Level) {
	total, unsafe, perRegion := 0, 0, map[Where]int{}
	for _, part := range parts {
		for _, v := range part.Values {
			if v.Level == level {
				total++
				perRegion[part.Where]++
				if part.Unsafe {
					unsafe++
				}
			}
		}
	}
	var by []string
	for _, r := range regions {
		by = append(by, fmt.Sprintf("%s %d", r.where, perRegion[r.where]))
	}
	what := "values"
	if level == LevelDeep {
		what = "more values"
	}
	fmt.Fprintf(w, "%d %s (%s), %d of them of unsafe parts.", total, what, strings.Join(by, ", "), unsafe)
	if level == LevelDefault {
		fmt.Fprint(w, " Each is sent in every operation its part applies to (or those its value names), once with the key and once without.")
	}
	fmt.Fprint(w, "\n\n")
}

// partCell names a part and what limits it.
func partCell(p Part) string {
	s := "`" + p.ID + "`<br>" + escape(p.Name)
	var notes []string
	if len(p.Ops) > 0 {
		notes = append(notes, "only "+strings.Join(p.Ops, ", "))
	}
	if p.BodyOnly {
		notes = append(notes, "operations with a body")
	}
	if p.Unsafe {
		notes = append(notes, "unsafe")
	}
	if p.NoCredentials {
		notes = append(notes, "sent without the key only")
	}
	if p.NotImplemented {
		notes = append(notes, "a 501 with an Error body is an answer")
	}
	if len(p.Interacts) > 0 {
		notes = append(notes, "with "+strings.Join(p.Interacts, ", ")+": "+escape(p.InteractsWhy))
	}
	if len(notes) > 0 {
		s += "<br>(" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// valuesCell lists a part's values of one level, with a meaning that differs from the part's.
func valuesCell(p Part, level Level) string {
	var lines []string
	for _, v := range p.Values {
		if v.Level != level {
			continue
		}
		line := "`" + v.Slug + "` " + escape(v.Words)
		if v.Overrides && v.Meaning != p.Meaning {
			line += " (" + v.Meaning.String()
			if v.Status != 0 {
				line += fmt.Sprintf(", %d", v.Status)
			}
			line += ")"
		} else if v.Status != 0 {
			line += fmt.Sprintf(" (%d)", v.Status)
		}
		if len(v.Allows) > 0 {
			line += " (success, or only " + strings.ReplaceAll(strings.Trim(fmt.Sprint(v.Allows), "[]"), " ", ", ") + ")"
		}
		if len(v.Ops) > 0 {
			line += " (only " + strings.Join(v.Ops, ", ") + ")"
		}
		if v.Covered != "" {
			line += " — sent by " + escape(v.Covered)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "<br>")
}

// cell makes text safe in a table cell; escape makes it safe outside code spans.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func escape(s string) string {
	return cell(strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s))
}
