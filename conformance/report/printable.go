package report

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Printable is s as the reports show text that may come from a target (bodies, headers,
// error messages): valid UTF-8 without a character XML 1.0 forbids, so that every report
// file is valid UTF-8 and the JUnit and HTML reports valid XML. A byte that is not UTF-8 is
// written \xNN, and so is a control character other than tab, newline and carriage return
// (escape among them: a body cannot colour or move a terminal's cursor); a C1 control or
// U+FFFE, U+FFFF is written \uNNNN. A backslash stays as it is: the reports are for reading,
// and the JSON report keeps the text as received (invalid bytes as U+FFFD).
func Printable(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && !printableRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !printableRune(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isPrintable(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !printableRune(r) {
			return false
		}
		i += n
	}
	return true
}

// printableRune reports whether a report shows r as it is.
func printableRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20 || r >= 0x7f && r < 0xa0: // C0, DEL, C1
		return false
	case r == 0xfffe || r == 0xffff:
		return false
	}
	return true
}

// printable is a copy of v (a *Report, a Result) with every string in it Printable: what
// every writer but JSON writes from. It walks the model by reflection, so that a field
// added to it later is covered too; a struct's unexported fields (time.Time's) are copied
// as they are.
func printable[T any](v T) T {
	return printableValue(reflect.ValueOf(v)).Interface().(T)
}

func printableValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		if p := Printable(v.String()); p != v.String() {
			return reflect.ValueOf(p).Convert(v.Type())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(printableValue(v.Elem()))
			return p
		}
	case reflect.Slice:
		if !v.IsNil() {
			s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				s.Index(i).Set(printableValue(v.Index(i)))
			}
			return s
		}
	case reflect.Map:
		if !v.IsNil() {
			m := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				m.SetMapIndex(printableValue(it.Key()), printableValue(it.Value()))
			}
			return m
		}
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(printableValue(v.Field(i)))
			}
		}
		return out
	}
	return v
}
