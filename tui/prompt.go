package tui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// lineEdit is a one-line text input: typed runes append, backspace
// deletes the last, ctrl+u clears. A value filled in for the operator
// starts selected, as a form's pre-filled field does: the first rune typed
// replaces it, backspace clears it, an arrow key keeps it to edit. It has
// no blinking cursor, so a frame with it is as reproducible as any other.
type lineEdit struct {
	text     []rune
	selected bool
}

func newLineEdit(s string) lineEdit { return lineEdit{text: []rune(s), selected: s != ""} }

// key edits the text; it reports whether the key was an edit.
func (l *lineEdit) key(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		if l.selected {
			l.text = nil
		}
		l.text = append(l.text, msg.Runes...)
	case tea.KeyBackspace:
		switch {
		case l.selected:
			l.text = nil
		case len(l.text) > 0:
			l.text = l.text[:len(l.text)-1]
		}
	case tea.KeyCtrlU:
		l.text = nil
	case tea.KeyLeft, tea.KeyRight, tea.KeyEnd, tea.KeyHome:
		// Keep the value, to edit it at its end.
	default:
		return false
	}
	l.selected = false
	return true
}

func (l lineEdit) String() string { return string(l.text) }

// cursorMark ends the text being edited.
const cursorMark = "█"

// field is one input of a prompt.
type field struct {
	label string
	hint  string // shown after the value: what it means, the choices
	edit  lineEdit
}

// action is what a confirmed prompt runs.
type action struct {
	// desc names it in the status line: "create topic orders".
	desc string
	// run does it and returns a note on the outcome.
	run func(ctx context.Context, a Actor) (string, error)
	// page is the page to tell when it is done (0: none), so a configs
	// view can reload what it changed.
	page int
}

// prompt asks for values, then for a yes/no confirmation of what they
// will do; a prompt without fields only confirms.
type prompt struct {
	title  string
	fields []field
	focus  int
	err    string
	// submit checks the values and returns the question to confirm and
	// the action, or an error to show under the fields.
	submit func(vals []string) (string, action, error)
	// local, set instead of submit, is a prompt that changes only the
	// view (where a browser reads from): it runs at once, unconfirmed.
	local func(vals []string) (tea.Cmd, error)
	done  tea.Cmd // what local returned

	confirming bool
	question   string
	act        action
}

// confirmPrompt asks only y/n.
func confirmPrompt(title, question string, act action) *prompt {
	return &prompt{title: title, confirming: true, question: question, act: act}
}

// formPrompt asks for fields, then confirms.
func formPrompt(title string, fields []field, submit func([]string) (string, action, error)) *prompt {
	return &prompt{title: title, fields: fields, submit: submit}
}

// inputPrompt asks for fields and applies them to the view, without a
// confirmation: it changes nothing in the cluster.
func inputPrompt(title string, fields []field, apply func([]string) (tea.Cmd, error)) *prompt {
	return &prompt{title: title, fields: fields, local: apply}
}

// promptResult is what a key did to a prompt.
type promptResult int

const (
	promptOpen promptResult = iota
	promptCancelled
	promptConfirmed
	promptApplied // a local prompt's values were applied
)

func (p *prompt) key(msg tea.KeyMsg, k keyMap) promptResult {
	if p.confirming {
		switch {
		case key.Matches(msg, k.Yes):
			return promptConfirmed
		case key.Matches(msg, k.No), msg.Type == tea.KeyCtrlC:
			return promptCancelled
		}
		return promptOpen
	}
	switch msg.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		return promptCancelled
	case tea.KeyTab, tea.KeyDown:
		p.focus = (p.focus + 1) % len(p.fields)
	case tea.KeyShiftTab, tea.KeyUp:
		p.focus = (p.focus + len(p.fields) - 1) % len(p.fields)
	case tea.KeyEnter:
		if p.focus < len(p.fields)-1 {
			p.focus++
			return promptOpen
		}
		vals := make([]string, len(p.fields))
		for i, f := range p.fields {
			vals[i] = strings.TrimSpace(f.edit.String())
		}
		if p.local != nil {
			cmd, err := p.local(vals)
			if err != nil {
				p.err = err.Error()
				return promptOpen
			}
			p.done = cmd
			return promptApplied
		}
		q, act, err := p.submit(vals)
		if err != nil {
			p.err = err.Error()
			return promptOpen
		}
		p.confirming, p.question, p.act, p.err = true, q, act, ""
	default:
		if p.fields[p.focus].edit.key(msg) {
			p.err = ""
		}
	}
	return promptOpen
}

// render draws the prompt as the bottom lines of the body.
func (p *prompt) render(st styles, w int) []string {
	rule := "── " + p.title + " "
	out := []string{st.rule.Render(rule + strings.Repeat("─", max(0, w-len([]rune(rule)))))}
	if p.confirming {
		// What the action will change is said whole, on as many lines
		// as it takes.
		for _, l := range wordWrap(p.question, max(10, w-2)) {
			out = append(out, "  "+st.title.Render(l))
		}
		return fitAll(append(out, "  "+st.dim.Render("y: yes · n/esc: no")), w)
	}
	labelW := 0
	for _, f := range p.fields {
		labelW = max(labelW, len([]rune(f.label))+1)
	}
	replaces := false
	for i, f := range p.fields {
		v := f.edit.String()
		mark := "  "
		if i == p.focus {
			if f.edit.selected {
				v = st.selected.Render(v)
				replaces = true
			}
			v += cursorMark
			mark = "> "
		}
		line := mark + padRight(f.label+":", labelW+1) + v
		switch {
		case f.hint == "":
		case ansi.StringWidth(line)+2+ansi.StringWidth(f.hint) <= w:
			line += "  " + st.dim.Render(f.hint)
		default:
			// Under the value, wrapped whole, rather than cut.
			out = append(out, line)
			indent := strings.Repeat(" ", 2+labelW+1)
			lines := wordWrap(f.hint, max(10, w-len(indent)))
			for _, l := range lines[:len(lines)-1] {
				out = append(out, indent+st.dim.Render(l))
			}
			line = indent + st.dim.Render(lines[len(lines)-1])
		}
		out = append(out, line)
	}
	if p.err != "" {
		out = append(out, "  "+st.bad.Render(p.err))
	}
	keys := "enter: next/ok · tab: next field · ctrl+u: clear · esc: cancel"
	if replaces {
		keys = "typing replaces it · enter: next/ok · tab: next · ctrl+u: clear · esc: cancel"
	}
	return fitAll(append(out, "  "+st.dim.Render(keys)), w)
}

func padRight(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}
