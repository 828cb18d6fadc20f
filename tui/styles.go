package tui

import (
	"io"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles holds every style the views use, built on one renderer so that
// the colour profile is decided once: the terminal's in interactive use,
// termenv.Ascii (no escape sequences at all) for --no-color, pipes and
// tests. Only the 16 basic ANSI colours are used, so the user's terminal
// theme decides how they look, and no background query (which
// AdaptiveColor would need) is ever sent to the terminal.
type styles struct {
	// plain is true without colour; views then mark state in text
	// (a "> " gutter, [tab] brackets), which they always do anyway.
	plain bool

	title, tabActive, tabInactive, rule lipgloss.Style
	header, selected, dim               lipgloss.Style
	bad, warn, good                     lipgloss.Style
	status, statusErr                   lipgloss.Style
	help                                help.Styles
}

// plainRenderer renders no escape sequences whatever the output is.
func plainRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

func newStyles(r *lipgloss.Renderer) styles {
	if r == nil {
		r = plainRenderer()
	}
	c := func(n string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(n)) }
	return styles{
		plain:       r.ColorProfile() == termenv.Ascii,
		title:       r.NewStyle().Bold(true),
		tabActive:   r.NewStyle().Bold(true).Reverse(true),
		tabInactive: c("8"),
		rule:        c("8"),
		header:      r.NewStyle().Bold(true).Underline(true),
		selected:    r.NewStyle().Reverse(true),
		dim:         c("8"),
		bad:         c("1").Bold(true),
		warn:        c("3"),
		good:        c("2"),
		status:      c("8"),
		statusErr:   c("1"),
		help: help.Styles{
			Ellipsis:       c("8"),
			ShortKey:       r.NewStyle().Bold(true),
			ShortDesc:      c("8"),
			ShortSeparator: c("8"),
			FullKey:        r.NewStyle().Bold(true),
			FullDesc:       c("8"),
			FullSeparator:  c("8"),
		},
	}
}
