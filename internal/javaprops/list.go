package javaprops

import "strings"

// List is the items of a comma-separated property value ("a, b,,c" is
// a, b, c): each trimmed of blanks, empty ones dropped; nil when there are
// none.
func List(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
